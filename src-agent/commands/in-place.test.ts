// applyInPlace on real folders, with one fault injected: a rename out of staging that fails
// (EIO). Tests run as root in CI, where no permission trick makes a real rename fail.
import type * as Fs from 'node:fs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { applyInPlace } from './in-place';
import { manifestFile, readNodeManifest, readRawManifest } from './node-manifest';
import type { ReceivedWorkspace } from './workspace-receiver';
import { entry, NodeFolder, seedWorkspace } from './workspace-test-helpers';

const fault = vi.hoisted(() => ({ stagedRenamesBeforeFailure: Infinity }));

vi.mock('node:fs', async (importOriginal) => {
  const { withStagedRenameFault } = await import('./workspace-test-helpers');
  return withStagedRenameFault(await importOriginal<typeof Fs>(), fault);
});

const node = new NodeFolder('tender-inplace-', fault);
beforeEach(node.create);
afterEach(node.remove);

const workspace = (files: Record<string, string>) => seedWorkspace(node.paths, files);

/** A delta as the receiver hands it over: `incoming` already written into staging. */
function delta(incoming: Record<string, string>, deletions: string[]): ReceivedWorkspace {
  mkdirSync(node.staging, { recursive: true });
  for (const [p, text] of Object.entries(incoming)) writeFileSync(join(node.staging, p), text);
  const base = readNodeManifest(node.paths)!;
  const received = new Map(Object.entries(incoming).map(([p, t]) => [p, entry(t)]));
  const files = new Map([...base.files, ...received]);
  for (const p of deletions) files.delete(p);
  return {
    files,
    dirs: [],
    mode: 'delta',
    kept: files.size - received.size,
    deleted: deletions.length,
    received,
    stagedName: (p) => p,
    base: { manifest: base, deletions },
  };
}

const read = (p: string) => readFileSync(join(node.paths.workspace, p), 'utf8');

describe('applyInPlace', () => {
  test('a failure after the first change leaves each file old or new, and a distrusted manifest', () => {
    workspace({ 'a.txt': 'a1', 'b.txt': 'b1', 'c.txt': 'c1' });
    const ws = delta({ 'a.txt': 'a2', 'b.txt': 'b2' }, ['c.txt']);
    fault.stagedRenamesBeforeFailure = 1;

    let err: unknown;
    try {
      applyInPlace(node.paths, node.staging, ws, '1-test');
    } catch (e) {
      err = e;
    }

    expect(err).toMatchObject({ code: 'EIO', isPartial: true });
    expect([read('a.txt'), read('b.txt')]).toEqual(['a2', 'b1']);
    expect(() => read('c.txt')).toThrow(/ENOENT/);
    // No reader trusts it, so the next push is full; it still lists every file the app put
    // there, old and new, so that push can delete what is stale.
    expect(readNodeManifest(node.paths)).toBeNull();
    expect([...readRawManifest(node.paths)!.files.keys()].sort()).toEqual([
      'a.txt',
      'b.txt',
      'c.txt',
    ]);
  });

  test('a failure before anything changed puts the manifest back byte for byte', () => {
    workspace({ 'a.txt': 'a1', 'b.txt': 'b1' });
    const before = readFileSync(manifestFile(node.paths));
    const ws = delta({ 'a.txt': 'a2', 'b.txt': 'b2' }, []);
    fault.stagedRenamesBeforeFailure = 0;

    expect(() => applyInPlace(node.paths, node.staging, ws, '1-test')).toThrow(/EIO/);

    expect([read('a.txt'), read('b.txt')]).toEqual(['a1', 'b1']);
    expect(readFileSync(manifestFile(node.paths)).equals(before)).toBe(true);
    expect(readNodeManifest(node.paths)).not.toBeNull();
  });

  test('without a failure the manifest is trusted and describes the new files', () => {
    workspace({ 'a.txt': 'a1', 'c.txt': 'c1' });
    applyInPlace(node.paths, node.staging, delta({ 'a.txt': 'a2' }, ['c.txt']), '1-test');

    const now = readNodeManifest(node.paths)!;
    expect([...now.files.keys()]).toEqual(['a.txt']);
    expect(now.files.get('a.txt')).toEqual(entry('a2'));
    expect(read('a.txt')).toBe('a2');
  });
});
