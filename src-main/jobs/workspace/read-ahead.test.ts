import {
  lstatSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeOpened, readAhead } from './read-ahead';
import { buildManifest } from './manifest';
import { HashCache } from './hash-cache';

let root: string;
let ws: string;
const SECRET = 'PRIVATE KEY outside the workspace\n';

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tender-readahead-'));
  ws = join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(join(root, 'id_ed25519'), SECRET);
  for (const name of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(join(ws, name), `${name}\n`);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Replaces `name` in the workspace with a symlink to the secret outside it. */
function swapInLink(name: string): void {
  unlinkSync(join(ws, name));
  symlinkSync(join(root, 'id_ed25519'), join(ws, name));
}

describe('readAhead never follows a symlink swapped in during a push', () => {
  it('skips the swapped file and reads the rest', async () => {
    const read: Record<string, string> = {};
    for await (const file of readAhead(ws, ['a.txt', 'b.txt', 'c.txt'])) {
      read[file.path] = file.data!.toString();
      closeOpened(file);
      if (file.path === 'a.txt') swapInLink('b.txt'); // after the scan, mid-push
    }
    expect(read).toEqual({ 'a.txt': 'a.txt\n', 'c.txt': 'c.txt\n' });
    expect(Object.values(read).join('')).not.toContain('PRIVATE KEY');
  });

  it('a manifest built over a path that became a symlink leaves it out', async () => {
    // As the scan saw them (files), then c.txt swapped before it is hashed.
    const scanned = ['a.txt', 'b.txt', 'c.txt'].map((path) => {
      const st = lstatSync(join(ws, path));
      return { path, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, mode: st.mode };
    });
    swapInLink('c.txt');
    const cache = await HashCache.load(join(root, 'hashes.json'));
    const { files } = await buildManifest({ root: ws, files: scanned, dirs: [] }, { cache });
    expect([...files.keys()]).toEqual(['a.txt', 'b.txt']);
  });
});
