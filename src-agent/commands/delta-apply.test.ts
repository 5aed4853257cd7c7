// applyDelta on real folders. A crash after the commit point is stood in for by a rename
// out of staging that fails (EIO) after K renames: the process stops changing things there,
// as a killed agent would, and the journal is left for finishPendingApply.
import type * as Fs from 'node:fs';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { applyDelta, finishPendingApply, journalFile } from './delta-apply';
import { manifestFile, readNodeManifest } from './node-manifest';
import type { ReceivedWorkspace } from './workspace-receiver';
import { entry, NodeFolder, seedWorkspace } from './workspace-test-helpers';

const fault = vi.hoisted(() => ({ stagedRenamesBeforeFailure: Infinity }));

vi.mock('node:fs', async (importOriginal) => {
  const { withStagedRenameFault } = await import('./workspace-test-helpers');
  return withStagedRenameFault(await importOriginal<typeof Fs>(), fault);
});

const node = new NodeFolder('tender-delta-apply-', fault);
beforeEach(node.create);
afterEach(node.remove);

const workspace = (files: Record<string, string>, dirs: string[]) =>
  seedWorkspace(node.paths, files, dirs);

/** A delta as the receiver hands it over: `incoming` staged under numbered names. */
function delta(
  incoming: Record<string, string>,
  deletions: string[],
  dirs: string[],
): ReceivedWorkspace {
  mkdirSync(node.staging, { recursive: true });
  const names = new Map<string, string>();
  for (const [i, [p, text]] of Object.entries(incoming).entries()) {
    writeFileSync(join(node.staging, String(i)), text);
    names.set(p, String(i));
  }
  const base = readNodeManifest(node.paths)!;
  const received = new Map(Object.entries(incoming).map(([p, t]) => [p, entry(t)]));
  const files = new Map([...base.files, ...received]);
  for (const p of deletions) files.delete(p);
  return {
    files,
    dirs,
    mode: 'delta',
    kept: files.size - received.size,
    deleted: deletions.length,
    received,
    stagedName: (p) => names.get(p)!,
    base: { manifest: base, deletions },
  };
}

/** Every entry under the workspace: `path/` for folders, `path=text` for files. */
function tree(dir = node.paths.workspace, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(`${path}/`, ...tree(join(dir, e.name), path));
    else if (e.isSymbolicLink()) out.push(`${path}@`);
    else out.push(`${path}=${readFileSync(join(dir, e.name), 'utf8')}`);
  }
  return out;
}

const BEFORE = { 'a.txt': 'a1', 'b.txt': 'b1', 'old/c.txt': 'c1', 'keep/d.txt': 'd1' };
const AFTER = ['a.txt=a2', 'keep/', 'keep/d.txt=d1', 'new/', 'new/n.txt=n1'];

/** The workspace of BEFORE plus what a job made there, and a delta to AFTER. */
function scenario(): ReceivedWorkspace {
  workspace(BEFORE, ['old', 'keep']);
  writeFileSync(join(node.paths.workspace, 'job-made.log'), 'x');
  mkdirSync(join(node.paths.workspace, 'keep/cache/deep'), { recursive: true });
  writeFileSync(join(node.paths.workspace, 'keep/cache/deep/blob'), 'x');
  symlinkSync('/etc', join(node.paths.workspace, 'etc-link'));
  return delta({ 'a.txt': 'a2', 'new/n.txt': 'n1' }, ['b.txt', 'old/c.txt'], ['keep', 'new']);
}

describe('applyDelta', () => {
  test('the workspace becomes exactly the new one; unchanged files keep their inodes', () => {
    const ws = scenario();
    const inode = lstatSync(join(node.paths.workspace, 'keep/d.txt')).ino;

    expect(applyDelta(node.paths, node.staging, ws, '1-test')).toBe(2);

    expect(tree()).toEqual(AFTER);
    expect(lstatSync(join(node.paths.workspace, 'keep/d.txt')).ino).toBe(inode);
    const now = readNodeManifest(node.paths)!;
    expect([...now.files.keys()].sort()).toEqual(['a.txt', 'keep/d.txt', 'new/n.txt']);
    expect(now.dirs).toEqual(['keep', 'new']);
    expect(existsSync(journalFile(node.paths))).toBe(false);
    expect(existsSync(node.staging)).toBe(false);
  });

  test.each([0, 1])(
    'a crash after %i of the moves is completed by the next finishPendingApply',
    (k) => {
      const ws = scenario();
      fault.stagedRenamesBeforeFailure = k;
      expect(() => applyDelta(node.paths, node.staging, ws, '1-test')).toThrow(/EIO/);
      expect(existsSync(journalFile(node.paths))).toBe(true);

      fault.stagedRenamesBeforeFailure = Infinity;
      expect(finishPendingApply(node.paths)).toBe(true);
      expect(tree()).toEqual(AFTER);
      expect([...readNodeManifest(node.paths)!.files.keys()].sort()).toEqual([
        'a.txt',
        'keep/d.txt',
        'new/n.txt',
      ]);
      expect(finishPendingApply(node.paths)).toBe(false); // done once, nothing left
    },
  );

  test('a failure before the commit point changes nothing', () => {
    workspace(BEFORE, ['old', 'keep']);
    const before = readFileSync(manifestFile(node.paths));
    const ws = delta({ 'a.txt': 'a2' }, ['b.txt'], ['old', 'keep']);
    rmSync(join(node.staging, '0')); // the staged file is gone: its signature cannot be taken

    expect(() => applyDelta(node.paths, node.staging, ws, '1-test')).toThrow(/ENOENT/);

    expect(tree()).toEqual([
      'a.txt=a1',
      'b.txt=b1',
      'keep/',
      'keep/d.txt=d1',
      'old/',
      'old/c.txt=c1',
    ]);
    expect(readFileSync(manifestFile(node.paths)).equals(before)).toBe(true);
    expect(existsSync(journalFile(node.paths))).toBe(false);
    expect(readdirSync(node.paths.dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  test('a damaged journal drops the manifest, so the next push is a full one', () => {
    workspace(BEFORE, ['old', 'keep']);
    writeFileSync(journalFile(node.paths), '{"version":1,"mov');

    expect(finishPendingApply(node.paths)).toBe(true);
    expect(existsSync(manifestFile(node.paths))).toBe(false);
    expect(existsSync(journalFile(node.paths))).toBe(false);
    expect(readNodeManifest(node.paths)).toBeNull();
  });
});
