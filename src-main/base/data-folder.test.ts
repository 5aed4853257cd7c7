import {
  chmodSync,
  chownSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureDataFolder } from './data-folder';
import { TenderError } from './tender-error';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tender-datafolder-'));
  chmodSync(root, 0o700);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (p: string) => statSync(p).mode & 0o7777;

function refusal(home: string): TenderError {
  try {
    ensureDataFolder(home);
  } catch (err) {
    if (err instanceof TenderError) return err;
    throw err;
  }
  throw new Error(`${home} was accepted`);
}

describe('ensureDataFolder', () => {
  it('creates a missing folder, and its missing parents, 0700 whatever the umask', () => {
    const previous = process.umask(0o000);
    try {
      ensureDataFolder(join(root, 'a', 'home'));
    } finally {
      process.umask(previous);
    }
    expect(mode(join(root, 'a', 'home'))).toBe(0o700);
    expect(mode(join(root, 'a'))).toBe(0o700);
  });

  it('tightens a readable folder of ours to 0700 (a data folder from an older Tender)', () => {
    const home = join(root, 'home');
    mkdirSync(home);
    chmodSync(home, 0o755);
    ensureDataFolder(home);
    expect(mode(home)).toBe(0o700);
  });

  // Each row: how the folder is made unsafe, and what the refusal must say.
  const unsafe: { name: string; arrange: (home: string) => string; says: RegExp; fix: RegExp }[] = [
    {
      name: 'writable by everyone',
      arrange: (home) => (mkdirSync(home), chmodSync(home, 0o777), home),
      says: /writable by others \(mode 0777\)/,
      fix: /chmod 700 .*home/,
    },
    {
      name: 'writable by its group',
      arrange: (home) => (mkdirSync(home), chmodSync(home, 0o770), home),
      says: /writable by others \(mode 0770\)/,
      fix: /chmod 700/,
    },
    {
      name: "another user's, even 0700",
      arrange: (home) => (mkdirSync(home, { mode: 0o700 }), chownSync(home, NOBODY, NOBODY), home),
      says: /belongs to another user \(uid 65534\)/,
      fix: /choose a folder of your own with TENDER_HOME/,
    },
    {
      name: "a symlink to another user's 0777 folder",
      arrange: (home) => {
        const target = join(root, 'theirs');
        mkdirSync(target);
        chmodSync(target, 0o777);
        chownSync(target, NOBODY, NOBODY);
        symlinkSync(target, home);
        return home;
      },
      says: /→ .*theirs\) belongs to another user/,
      fix: /TENDER_HOME/,
    },
    {
      name: 'a symlink owned by another user',
      arrange: (home) => {
        const target = join(root, 'mine');
        mkdirSync(target, { mode: 0o700 });
        symlinkSync(target, home);
        lchownSync(home, NOBODY, NOBODY);
        return home;
      },
      says: /is a symlink owned by another user \(uid 65534\)/,
      fix: /TENDER_HOME/,
    },
    {
      name: 'inside a folder anyone can write to (not sticky)',
      arrange: () => {
        const parent = join(root, 'shared');
        mkdirSync(parent);
        chmodSync(parent, 0o777);
        mkdirSync(join(parent, 'home'), { mode: 0o700 });
        return join(parent, 'home');
      },
      says: /shared, a folder above the data folder .* is writable by everyone/,
      fix: /chmod go-w .*shared/,
    },
    {
      name: "inside another user's folder",
      arrange: () => {
        const parent = join(root, 'theirs');
        mkdirSync(parent, { mode: 0o755 });
        mkdirSync(join(parent, 'home'), { mode: 0o700 });
        chownSync(parent, NOBODY, NOBODY);
        return join(parent, 'home');
      },
      says: /theirs, a folder above the data folder .* belongs to another user/,
      fix: /TENDER_HOME/,
    },
  ];

  it.skipIf(!isRoot).each(unsafe)('refuses a folder $name, naming it and the fix', (row) => {
    const home = row.arrange(join(root, 'home'));
    const err = refusal(home);
    expect(err.code).toBe('bad_input');
    expect(err.message).toContain(home);
    expect(err.message).toMatch(row.says);
    expect(err.hint).toMatch(row.fix);
  });

  it('accepts a folder of ours inside a sticky world-writable folder (/tmp)', () => {
    const sticky = join(root, 'tmp');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    ensureDataFolder(join(sticky, 'home'));
    expect(mode(join(sticky, 'home'))).toBe(0o700);
  });

  it('accepts a group-writable parent that is ours, of our own group (user private groups)', () => {
    const parent = join(root, 'mine');
    mkdirSync(parent);
    chmodSync(parent, 0o770);
    ensureDataFolder(join(parent, 'home'));
  });
});
