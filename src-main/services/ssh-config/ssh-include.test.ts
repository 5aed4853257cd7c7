import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  hasInclude,
  installInclude,
  isIncludeInstalled,
  uninstallInclude,
  userSshConfigPath,
  withInclude,
  withoutInclude,
} from './ssh-include';

const OURS = '/data/Tender/ssh/config';
const SPACED = '/Users/a b/Library/Application Support/Tender/ssh/config';

describe('Include line, as text', () => {
  it.each<[string, string, string, string]>([
    ['empty file', '', OURS, `Include ${OURS}\n`],
    ['before the first Host', 'Host x\n  User y\n', OURS, `Include ${OURS}\nHost x\n  User y\n`],
    [
      'before global options too',
      'ServerAliveInterval 30\nMatch all\n',
      OURS,
      `Include ${OURS}\nServerAliveInterval 30\nMatch all\n`,
    ],
    ['already there: unchanged', `Host a\nInclude ${OURS}\n`, OURS, `Host a\nInclude ${OURS}\n`],
    ['already there, quoted, other case', `include "${OURS}"\n`, OURS, `include "${OURS}"\n`],
    ['a path with spaces is quoted', 'Host x\n', SPACED, `Include "${SPACED}"\nHost x\n`],
    ['CRLF file keeps CRLF', 'Host x\r\n', OURS, `Include ${OURS}\r\nHost x\r\n`],
    [
      'another Include is not ours',
      'Include ~/.ssh/other\n',
      OURS,
      `Include ${OURS}\nInclude ~/.ssh/other\n`,
    ],
  ])('add: %s', (_n, before, path, after) => {
    expect(withInclude(before, path)).toBe(after);
    expect(withInclude(after, path)).toBe(after); // never twice
    expect(hasInclude(after, path)).toBe(true);
  });

  it.each<[string, string, string]>([
    ['ours at the top', `Include ${OURS}\nHost x\n`, 'Host x\n'],
    [
      'every copy, the rest byte for byte',
      `Include ${OURS}\nHost x\n  Include ${OURS}\n# c\n`,
      'Host x\n# c\n',
    ],
    ['none: unchanged', 'Include /other\nHost x', 'Include /other\nHost x'],
    ['CRLF', `Include ${OURS}\r\nHost x\r\n`, 'Host x\r\n'],
  ])('remove: %s', (_n, before, after) => {
    expect(withoutInclude(before, OURS)).toBe(after);
  });
});

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});
function tempHome(): string {
  const h = mkdtempSync(join(tmpdir(), 'tender-sshinc-'));
  homes.push(h);
  return h;
}

describe('installInclude / uninstallInclude on a temp HOME', () => {
  it('creates ~/.ssh 0700 and the config 0600 when absent; never twice; uninstall leaves the file', () => {
    const home = tempHome();
    const cfg = userSshConfigPath(home);
    expect(isIncludeInstalled(OURS, cfg)).toBe(false);
    expect(installInclude(OURS, cfg)).toEqual({ path: cfg, changed: true, created: true });
    expect(statSync(join(home, '.ssh')).mode & 0o777).toBe(0o700);
    expect(statSync(cfg).mode & 0o777).toBe(0o600);
    expect(readFileSync(cfg, 'utf8')).toBe(`Include ${OURS}\n`);
    expect(installInclude(OURS, cfg).changed).toBe(false);
    expect(readFileSync(cfg, 'utf8')).toBe(`Include ${OURS}\n`);
    expect(isIncludeInstalled(OURS, cfg)).toBe(true);
    expect(uninstallInclude(OURS, cfg).changed).toBe(true);
    expect(readFileSync(cfg, 'utf8')).toBe('');
    expect(uninstallInclude(OURS, cfg).changed).toBe(false);
    // No temp file left behind by the atomic writes.
    expect(readdirSync(join(home, '.ssh'))).toEqual(['config']);
  });

  it('keeps an existing file, its mode and its folder mode', () => {
    const home = tempHome();
    mkdirSync(join(home, '.ssh'), { mode: 0o755 });
    const cfg = userSshConfigPath(home);
    writeFileSync(cfg, 'Host lab\n  HostName 10.0.0.2\n', { mode: 0o644 });
    installInclude(OURS, cfg);
    expect(readFileSync(cfg, 'utf8')).toBe(`Include ${OURS}\nHost lab\n  HostName 10.0.0.2\n`);
    expect(statSync(cfg).mode & 0o777).toBe(0o644);
    expect(statSync(join(home, '.ssh')).mode & 0o777).toBe(0o755);
    uninstallInclude(OURS, cfg);
    expect(readFileSync(cfg, 'utf8')).toBe('Host lab\n  HostName 10.0.0.2\n');
  });

  it('a symlinked config (dotfiles) is changed where it points and stays a link', () => {
    const home = tempHome();
    mkdirSync(join(home, 'dotfiles'));
    mkdirSync(join(home, '.ssh'), { mode: 0o700 });
    const real = join(home, 'dotfiles', 'ssh_config');
    writeFileSync(real, 'Host x\n', { mode: 0o600 });
    const cfg = userSshConfigPath(home);
    symlinkSync(real, cfg);
    expect(installInclude(OURS, cfg).path).toBe(real);
    expect(readFileSync(real, 'utf8')).toBe(`Include ${OURS}\nHost x\n`);
    expect(readFileSync(cfg, 'utf8')).toBe(`Include ${OURS}\nHost x\n`);
  });
});
