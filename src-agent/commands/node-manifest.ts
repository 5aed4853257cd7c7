// D/workspace.manifest.json: the manifest of D/workspace, plus what the node needs to trust
// it later: the workspace folder's inode, and each file's (inode, size, mtime, mode) as it
// was written. A reader drops every file whose stat no longer matches (a job edited,
// replaced or removed it), so the app re-sends it, and ignores the whole manifest when the
// folder's inode differs (a crash between the swap and the manifest's rename, or anything
// else that replaced the folder): the app then pushes in full.
import { lstatSync, readFileSync, renameSync, rmSync, type Stats, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodePaths } from '../paths';
import type { WorkspaceManifest } from '../protocol';
import { filesOf, type ManifestFiles, stringsOf, toManifest } from '../workspace-manifest';

type Signature = [ino: number, size: number, mtimeMs: number, mode: number];

interface StoredManifest extends WorkspaceManifest {
  node: { workspaceIno: number; stat: Record<string, Signature> };
}

export interface NodeManifest {
  files: ManifestFiles;
  dirs: string[];
  /** Each file's inode as just checked: a hard link made from it must share it. */
  inodes: Map<string, number>;
}

export const manifestFile = (paths: NodePaths): string =>
  join(paths.dir, 'workspace.manifest.json');

/** The manifest of what D/workspace holds now, or null when there is none to trust. */
export function readNodeManifest(paths: NodePaths): NodeManifest | null {
  let stored: StoredManifest;
  let files: ManifestFiles;
  let dirs: string[];
  try {
    stored = JSON.parse(readFileSync(manifestFile(paths), 'utf8')) as StoredManifest;
    files = filesOf(stored.files, 'workspace manifest');
    dirs = stringsOf(stored.dirs, 'workspace manifest dirs');
    if (stored.version !== 1 || typeof stored.node?.stat !== 'object') return null;
  } catch {
    return null; // missing, torn or from another version: a full push rebuilds it
  }
  const root = lstatOrNull(paths.workspace);
  if (!root?.isDirectory() || root.ino !== stored.node.workspaceIno) return null;

  const kept: NodeManifest = { files: new Map(), dirs: [], inodes: new Map() };
  const stat = new Map(Object.entries(stored.node.stat));
  for (const [path, entry] of files) {
    const sig = stat.get(path);
    const st = lstatOrNull(join(paths.workspace, path));
    if (!sig || !st?.isFile() || !sameSignature(signatureOf(st), sig)) continue;
    kept.files.set(path, entry);
    kept.inodes.set(path, st.ino);
  }
  kept.dirs = dirs.filter((d) => lstatOrNull(join(paths.workspace, d))?.isDirectory() === true);
  return kept;
}

/**
 * Writes the manifest of the folder `root` (the staging folder, about to become
 * D/workspace) to a temporary file beside the manifest and returns its path; renaming it
 * into place is the caller's last step of the swap. Renames keep inodes, and hard links
 * change none of the signature's fields, so what is read here holds after the swap.
 */
export function stageNodeManifest(
  paths: NodePaths,
  root: string,
  files: ManifestFiles,
  dirs: readonly string[],
  tag: string,
): string {
  const stat: Record<string, Signature> = {};
  for (const path of files.keys()) stat[path] = signatureOf(lstatSync(join(root, path)));
  const stored: StoredManifest = {
    ...toManifest(files, dirs),
    node: { workspaceIno: lstatSync(root).ino, stat },
  };
  const tmp = `${manifestFile(paths)}.tmp-${tag}`;
  try {
    writeFileSync(tmp, `${JSON.stringify(stored)}\n`);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  return tmp;
}

export function commitNodeManifest(paths: NodePaths, staged: string): void {
  renameSync(staged, manifestFile(paths));
}

const signatureOf = (st: Stats): Signature => [st.ino, st.size, st.mtimeMs, st.mode & 0o7777];

function sameSignature(a: Signature, b: unknown): boolean {
  return Array.isArray(b) && b.length === 4 && a.every((v, i) => v === b[i]);
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
