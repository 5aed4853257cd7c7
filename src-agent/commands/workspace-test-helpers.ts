// Shared by the tests of in-place and journaled deltas: a node folder on disk, manifest
// entries, and a rename out of staging that fails on cue. Not part of the bundle.
import type * as Fs from 'node:fs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodePaths, type NodePaths } from '../wire/paths';
import type { ManifestEntry } from '../wire/protocol';
import { commitNodeManifest, stageNodeManifest } from './node-manifest';

export const entry = (text: string): ManifestEntry => ({
  size: Buffer.byteLength(text),
  mode: 0o644,
  sha256: 'f'.repeat(64), // the manifest's hashes are not checked here
});

/** A node folder D (under a fresh temp folder named `prefix…`) and the staging folder a
 *  receiver would use in it: `create` before each test (it also resets the fault),
 *  `remove` after. */
export class NodeFolder {
  paths = nodePaths('/nonexistent');
  staging = '';
  private root = '';

  constructor(
    private readonly prefix: string,
    private readonly fault: { stagedRenamesBeforeFailure: number },
  ) {}

  readonly create = (): void => {
    this.root = mkdtempSync(join(tmpdir(), this.prefix));
    this.paths = nodePaths(join(this.root, 'D'));
    this.staging = join(this.paths.dir, '.workspace-staging-1-test');
    this.fault.stagedRenamesBeforeFailure = Infinity;
  };

  readonly remove = (): void => rmSync(this.root, { recursive: true, force: true });
}

/** `fs` with a `renameSync` out of a staging folder that fails (EIO) once
 *  `fault.stagedRenamesBeforeFailure` renames have been made: a crash, or a failing disk,
 *  at that point. For `vi.mock('node:fs', …)`. */
export function withStagedRenameFault(
  fs: typeof Fs,
  fault: { stagedRenamesBeforeFailure: number },
): typeof Fs {
  return {
    ...fs,
    renameSync: (from: Fs.PathLike, to: Fs.PathLike) => {
      if (String(from).includes('.workspace-staging-') && fault.stagedRenamesBeforeFailure-- <= 0) {
        throw Object.assign(new Error(`EIO: i/o error, rename '${String(from)}'`), {
          code: 'EIO',
          syscall: 'rename',
        });
      }
      fs.renameSync(from, to);
    },
  };
}

/** D/workspace holding `files` (and the folders `dirs`), with a trusted manifest of them. */
export function seedWorkspace(
  paths: NodePaths,
  files: Record<string, string>,
  dirs: string[] = [],
): void {
  for (const d of ['', ...dirs]) mkdirSync(join(paths.workspace, d), { recursive: true });
  for (const [p, text] of Object.entries(files)) writeFileSync(join(paths.workspace, p), text);
  const entries = new Map(Object.entries(files).map(([p, t]) => [p, entry(t)]));
  commitNodeManifest(paths, stageNodeManifest(paths, paths.workspace, entries, dirs, 'seed'));
}
