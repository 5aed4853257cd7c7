// A new job on a node that served one before (a warm node) starts from a clean slate: the
// workspace holds exactly what the app pushed — whatever the job before wrote there (its
// outputs, scratch files) is removed — and the job before's TENDER_OUTPUT is set aside in
// D/previous-output (one kept), so a declared output the new job does not write is reported
// missing, never the old one collected. Its TENDER_METRICS file is removed: the new job's
// metrics start empty (the old lines are in the node's log already). What should outlive a
// run belongs in TENDER_CACHE.
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readRawManifest } from '../../commands/node-manifest';
import type { NodePaths } from '../../wire/paths';

export interface CleanSlateResult {
  removed: number;
  outputSetAside: boolean;
}

export function cleanSlate(paths: NodePaths): CleanSlateResult {
  let outputSetAside = false;
  rmSync(paths.metrics, { force: true });
  if (existsSync(paths.output) && readdirSync(paths.output).length > 0) {
    const aside = join(paths.dir, 'previous-output');
    rmSync(aside, { recursive: true, force: true });
    renameSync(paths.output, aside);
    outputSetAside = true;
  }
  let removed = 0;
  for (const path of strayPaths(paths)) {
    rmSync(join(paths.workspace, path), { recursive: true, force: true });
    removed++;
  }
  return { removed, outputSetAside };
}

/** The workspace paths the app did not push, the top-most of each (a folder nobody pushed
 *  is one path), in walk order; none without a manifest or a workspace. */
export function strayPaths(paths: NodePaths): string[] {
  const manifest = readRawManifest(paths);
  if (!manifest || !existsSync(paths.workspace)) return [];
  const keepFiles = new Set(manifest.files.keys());
  const keepDirs = new Set(manifest.dirs);
  const strays: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(join(paths.workspace, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory() && !e.isSymbolicLink()) {
        if (keepDirs.has(path) || hasKeptBelow(path, keepFiles, keepDirs)) walk(path);
        else strays.push(path);
      } else if (!keepFiles.has(path)) strays.push(path);
    }
  };
  walk('');
  return strays;
}

function hasKeptBelow(dir: string, files: Set<string>, dirs: Set<string>): boolean {
  const prefix = `${dir}/`;
  for (const f of files) if (f.startsWith(prefix)) return true;
  for (const d of dirs) if (d.startsWith(prefix)) return true;
  return false;
}
