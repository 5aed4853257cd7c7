// `workspace-manifest --dir D`: the marker, then the manifest of D/workspace as one JSON
// line, or nothing when there is no workspace (or none whose manifest can be trusted).
import { STREAM_MARKER } from '../marker';
import { nodePaths } from '../paths';
import { toManifest } from '../workspace-manifest';
import { readNodeManifest } from './node-manifest';

export async function runWorkspaceManifest(dir: string): Promise<number> {
  const current = readNodeManifest(nodePaths(dir));
  const line = current ? `${JSON.stringify(toManifest(current.files, current.dirs))}\n` : '';
  await new Promise<void>((resolve) =>
    process.stdout.write(`${STREAM_MARKER}${line}`, () => resolve()),
  );
  return 0;
}
