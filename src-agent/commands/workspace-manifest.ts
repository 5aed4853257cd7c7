// `workspace-manifest --dir D`: the marker, then the manifest of D/workspace as one JSON
// line, or nothing when there is no workspace (or none whose manifest can be trusted).
import { STREAM_MARKER } from '../wire/marker';
import { nodePaths, type NodePaths } from '../wire/paths';
import type { WorkspaceManifest } from '../wire/protocol';
import { toManifest } from '../wire/workspace-manifest';
import { finishPendingApply } from './delta-apply';
import { readNodeManifest } from './node-manifest';

export async function runWorkspaceManifest(dir: string): Promise<number> {
  const manifest = workspaceManifestOf(nodePaths(dir));
  const line = manifest ? `${JSON.stringify(manifest)}\n` : '';
  await new Promise<void>((resolve) =>
    process.stdout.write(`${STREAM_MARKER}${line}`, () => resolve()),
  );
  return 0;
}

/** The manifest `workspace-manifest` prints, or null (see the top of this file). */
export function workspaceManifestOf(paths: NodePaths): WorkspaceManifest | null {
  try {
    finishPendingApply(paths);
  } catch {
    // The manifest read next then vouches only for files as they are: a full push at worst.
  }
  const current = readNodeManifest(paths);
  return current ? toManifest(current.files, current.dirs) : null;
}
