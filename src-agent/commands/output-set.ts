// What a pull of the outputs would send: the declared paths (relative to the workspace)
// and everything under the node's output folder (as `_output/`), each path once. Shared by
// `pack-outputs` (which sends it) and the daemon's `outputs.glance` (which counts it).
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { NodePaths } from '../wire/paths';
import {
  OUTPUT_DIR_PREFIX,
  type OutputsGlance,
  type OutputsManifest,
  type OutputsSpec,
} from '../wire/protocol';
import { type FoundEntry, isInside, walkOutputs } from './output-walk';

/** The entries to send (deduplicated, first wins) and a manifest with `missing` and
 *  `refused` filled in (`files` is left for the sender). */
export function findOutputSet(
  paths: Pick<NodePaths, 'workspace' | 'output'>,
  spec: OutputsSpec,
): { entries: FoundEntry[]; manifest: OutputsManifest } {
  const manifest: OutputsManifest = { files: [], missing: [], refused: [] };
  const entries: FoundEntry[] = [];
  const workspace = existsSync(paths.workspace) ? realpathSync(paths.workspace) : undefined;
  for (const declared of spec.paths) {
    const target = workspace && join(workspace, declared);
    if (isAbsolute(declared) || (target && !isInside(workspace, target))) {
      manifest.refused.push(declared);
      continue;
    }
    if (!workspace || !target) {
      manifest.missing.push(declared);
      continue;
    }
    const found = walkOutputs(workspace, target, '');
    if (found === 'missing') manifest.missing.push(declared);
    else if (found === 'outside') manifest.refused.push(declared);
    else entries.push(...found);
  }
  if (existsSync(paths.output)) {
    const output = realpathSync(paths.output);
    const found = walkOutputs(output, output, OUTPUT_DIR_PREFIX.slice(0, -1));
    if (Array.isArray(found)) entries.push(...found);
  }
  return { entries: dedupe(entries), manifest };
}

/** What the output set holds, without sending it: enough for the app to skip a pull that
 *  would bring nothing (no files; the folders it names are made on the app's side). */
export function glanceOutputSet(
  paths: Pick<NodePaths, 'workspace' | 'output'>,
  spec: OutputsSpec,
): OutputsGlance {
  const { entries, manifest } = findOutputSet(paths, spec);
  const files = entries.filter((e) => e.kind === 'file');
  return {
    files: files.length,
    bytes: files.reduce((n, e) => n + e.size, 0),
    dirs: entries
      .filter((e) => e.kind === 'directory' && e.archivePath !== '')
      .slice(0, GLANCE_MAX_DIRS)
      .map((e) => e.archivePath),
    moreDirs: entries.filter((e) => e.kind === 'directory').length > GLANCE_MAX_DIRS,
    missing: manifest.missing,
    refused: manifest.refused,
  };
}

/** A glance names at most this many folders (more: the app pulls as usual). */
export const GLANCE_MAX_DIRS = 200;

/** Overlapping declarations ("out/" and "out/a.txt") give each path once, first wins. */
function dedupe(entries: FoundEntry[]): FoundEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => !seen.has(e.archivePath) && seen.add(e.archivePath));
}
