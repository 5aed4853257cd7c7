import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manifestFile } from '../../commands/node-manifest';
import { nodePaths, type NodePaths } from '../../wire/paths';
import { setupWorkspaceWrites, workspaceWritesNotice } from './setup-writes';

let root: string;
let paths: NodePaths;
const PUSHED = ['requirements.txt', 'train.py', 'src/model.py'];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tender-setup-writes-'));
  paths = nodePaths(join(root, 'D'));
  const entry = { size: 1, mode: 0o644, sha256: '0'.repeat(64) };
  mkdirSync(join(paths.workspace, 'src'), { recursive: true });
  for (const p of PUSHED) writeFileSync(join(paths.workspace, p), 'x');
  writeFileSync(
    manifestFile(paths),
    JSON.stringify({
      version: 1,
      files: Object.fromEntries(PUSHED.map((p) => [p, entry])),
      dirs: ['src'],
    }),
  );
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('setupWorkspaceWrites: what setup wrote that a later run would not find', () => {
  // [what, paths setup wrote (a trailing / is a folder), expected]
  // prettier-ignore
  const cases: [string, string[], string[]][] = [
    ['nothing: the environment can be kept', [], []],
    ['a dataset downloaded into the workspace', ['data/train.csv', 'data/test.csv'], ['data']],
    ['a generated file beside the code', ['src/generated.py'], ['src/generated.py']],
    ['the residue of `pip install -e .` is not a write that matters', ['repo.egg-info/PKG-INFO', 'src/__pycache__/model.cpython-311.pyc', 'build/lib/x.py', '.eggs/x'], []],
    ['residue beside a real write', ['src/__pycache__/m.pyc', 'vocab.json'], ['vocab.json']],
  ];
  it.each(cases)('%s', (_what, wrote, expected) => {
    for (const p of wrote) {
      mkdirSync(join(paths.workspace, p, '..'), { recursive: true });
      writeFileSync(join(paths.workspace, p), 'w');
    }
    expect(setupWorkspaceWrites(paths).sort()).toEqual(expected);
  });

  it('has nothing to say without a manifest (a workspace the app never pushed)', () => {
    rmSync(manifestFile(paths));
    writeFileSync(join(paths.workspace, 'data.csv'), 'w');
    expect(setupWorkspaceWrites(paths)).toEqual([]);
  });

  it('the notice names the first three writes, the count, and both fixes', () => {
    const text = workspaceWritesNotice('abc', ['a', 'b', 'c', 'd']);
    expect(text).toMatch(
      /^environment abc not kept: setup wrote a, b, c, … \(4\) into the workspace/,
    );
    expect(text).toMatch(/\$TENDER_ENV or \$TENDER_CACHE/);
    expect(text).toMatch(/setup_cache = false/);
  });
});
