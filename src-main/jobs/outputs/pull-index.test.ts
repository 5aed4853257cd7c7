import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { haveOf, pullIndexFile, readPullIndex, writePullIndex } from './pull-index';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

function landed(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'tender-pull-index-'));
  roots.push(root);
  const dest = join(root, 'outputs');
  for (const [p, body] of Object.entries(files)) {
    mkdirSync(join(dest, p, '..'), { recursive: true });
    writeFileSync(join(dest, p), body);
  }
  return dest;
}

const pulled = (size: number, n: number) => ({ size, sha256: `h${n}`, nodeMtimeMs: 1000 * n });

describe('the pull index', () => {
  it('gives back what the last pull wrote, as `have`', () => {
    const dest = landed({ 'a.txt': 'aa', 'sub/b.bin': 'bbb' });
    writePullIndex(
      dest,
      new Map([
        ['a.txt', pulled(2, 1)],
        ['sub/b.bin', pulled(3, 2)],
      ]),
    );
    expect(haveOf(readPullIndex(dest))).toEqual({ 'a.txt': [2, 1000], 'sub/b.bin': [3, 2000] });
  });

  it('drops a file edited, replaced or removed here since (it is asked for again)', () => {
    const dest = landed({
      'edited.txt': 'v1',
      'replaced.txt': 'r1',
      'gone.txt': 'g',
      'ok.txt': 'k',
    });
    writePullIndex(
      dest,
      new Map([
        ['edited.txt', pulled(2, 1)],
        ['replaced.txt', pulled(2, 2)],
        ['gone.txt', pulled(1, 3)],
        ['ok.txt', pulled(1, 4)],
      ]),
    );
    writeFileSync(join(dest, 'edited.txt'), 'v2 longer');
    rmSync(join(dest, 'replaced.txt'));
    writeFileSync(join(dest, 'replaced.txt'), 'r2'); // same size, another inode
    rmSync(join(dest, 'gone.txt'));
    expect([...readPullIndex(dest).keys()]).toEqual(['ok.txt']);
  });

  it('holds nothing when there is no index or it is not one', () => {
    const dest = landed({ 'a.txt': 'a' });
    expect(readPullIndex(dest).size).toBe(0);
    writeFileSync(pullIndexFile(dest), '{"version":7}');
    expect(readPullIndex(dest).size).toBe(0);
    writeFileSync(pullIndexFile(dest), 'not json');
    expect(readPullIndex(dest).size).toBe(0);
  });
});
