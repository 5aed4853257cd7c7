// D/workspace.manifest.json: the manifest of D/workspace, plus what the node needs to trust
// it later: the workspace folder's inode, and each file's (inode, size, mtime, mode) as it
// was written. A reader drops every file whose stat no longer matches (a job edited,
// replaced or removed it), so the app re-sends it, and ignores the whole manifest when the
// folder's inode differs (a crash between the swap and the manifest's rename, or anything
// else that replaced the folder): the app then pushes in full. An in-place push marks the
// manifest `partial` while it changes the live folder (in-place.ts), for the same effect.
import { lstatSync, readFileSync, renameSync, rmSync, type Stats, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodePaths } from '../wire/paths';
import type { WorkspaceManifest } from '../wire/protocol';
import {
  filesOf,
  manifestDigest,
  type ManifestFiles,
  stringsOf,
  toManifest,
} from '../wire/workspace-manifest';

export type Signature = [ino: number, size: number, mtimeMs: number, mode: number];

interface StoredManifest extends WorkspaceManifest {
  node: { workspaceIno: number; stat: Record<string, Signature>; partial?: true };
}

export interface NodeManifest {
  files: ManifestFiles;
  dirs: string[];
  /** Each file's signature as just checked (an in-place push carries it over). */
  signatures: Map<string, Signature>;
  /** `manifestDigest(files, dirs)`, when known without computing it. */
  digest?: string;
}

export const manifestFile = (paths: NodePaths): string =>
  join(paths.dir, 'workspace.manifest.json');

/** The manifest as last parsed, while the file is the same one (a manifest is only ever
 *  replaced by a rename): a long-lived `serve-workspace` then parses it once per change. */
let parsed:
  | {
      file: string;
      key: string;
      stored: StoredManifest;
      files: ManifestFiles;
      dirs: string[];
      digest?: string;
    }
  | undefined;

function parseManifest(
  paths: NodePaths,
): { stored: StoredManifest; files: ManifestFiles; dirs: string[]; digest?: string } | null {
  const file = manifestFile(paths);
  const st = lstatOrNull(file);
  if (!st) return null;
  const key = keyOf(st);
  if (parsed?.file === file && parsed.key === key) return parsed;
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as StoredManifest;
    const files = filesOf(stored.files, 'workspace manifest');
    const dirs = stringsOf(stored.dirs, 'workspace manifest dirs');
    if (stored.version !== 1 || typeof stored.node?.stat !== 'object') return null;
    parsed = { file, key, stored, files, dirs };
    return parsed;
  } catch {
    return null; // missing, torn or from another version: a full push rebuilds it
  }
}

/** The manifest of what D/workspace holds now, or null when there is none to trust. */
export function readNodeManifest(paths: NodePaths): NodeManifest | null {
  const m = parseManifest(paths);
  if (!m) return null;
  const { stored, files, dirs } = m;
  if (stored.node.partial === true) return null; // an in-place push stopped halfway
  const root = lstatOrNull(paths.workspace);
  if (!root?.isDirectory() || root.ino !== stored.node.workspaceIno) return null;

  const kept: NodeManifest = {
    files: new Map(),
    dirs: [],
    signatures: new Map(),
  };
  const stat = stored.node.stat;
  const prefix = `${paths.workspace}/`;
  for (const [path, entry] of files) {
    const sig = Object.hasOwn(stat, path) ? stat[path] : undefined;
    const st = sig && lstatOrNull(prefix + path);
    if (!st?.isFile() || !sameSignature(signatureOf(st), sig)) continue;
    kept.files.set(path, entry);
    kept.signatures.set(path, signatureOf(st));
  }
  kept.dirs = dirs.filter((d) => lstatOrNull(prefix + d)?.isDirectory() === true);
  // Nothing dropped: the digest of the manifest as written, computed once per manifest.
  if (kept.files.size === files.size && kept.dirs.length === dirs.length) {
    m.digest ??= manifestDigest(files, dirs);
    kept.digest = m.digest;
  }
  return kept;
}

/** What the manifest file lists, without any check against the folder (none: null). An
 *  in-place full push deletes what it listed and the new workspace lacks. */
export function readRawManifest(paths: NodePaths): { files: ManifestFiles; dirs: string[] } | null {
  try {
    const stored = JSON.parse(readFileSync(manifestFile(paths), 'utf8')) as StoredManifest;
    if (stored.version !== 1) return null;
    return {
      files: filesOf(stored.files, 'workspace manifest'),
      dirs: stringsOf(stored.dirs, 'workspace manifest dirs'),
    };
  } catch {
    return null;
  }
}

/**
 * Writes the manifest of the folder `root` (the staging folder, about to become
 * D/workspace; or D/workspace itself after an in-place push) to a temporary file beside
 * the manifest and returns its path; renaming it into place is the caller's last step.
 * Renames keep inodes and change none of the signature's fields, so what is
 * read here holds after the swap. `known` gives signatures taken earlier (a file staged
 * before it was moved in, or one an in-place delta left alone): those files are not read.
 * `isPartial`: a manifest no reader trusts, listing what an in-place push may leave behind.
 */
export function stageNodeManifest(
  paths: NodePaths,
  root: string,
  files: ManifestFiles,
  dirs: readonly string[],
  tag: string,
  opts: { known?: ReadonlyMap<string, Signature>; isPartial?: boolean } = {},
): string {
  const stat: Record<string, Signature> = {};
  if (!opts.isPartial) {
    for (const path of files.keys())
      stat[path] = opts.known?.get(path) ?? signatureOf(lstatSync(join(root, path)));
  }
  const node: StoredManifest['node'] = { workspaceIno: lstatSync(root).ino, stat };
  if (opts.isPartial) node.partial = true;
  const stored: StoredManifest = { ...toManifest(files, dirs), node };
  const tmp = `${manifestFile(paths)}.tmp-${tag}`;
  try {
    writeFileSync(tmp, `${JSON.stringify(stored)}\n`);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  staged = { tmp, stored, files: new Map(files), dirs: [...dirs] };
  return tmp;
}

/** The manifest last staged by this process: what it holds need not be parsed back. */
let staged:
  { tmp: string; stored: StoredManifest; files: ManifestFiles; dirs: string[] } | undefined;

export function commitNodeManifest(paths: NodePaths, tmp: string): void {
  renameSync(tmp, manifestFile(paths));
  if (staged?.tmp !== tmp) return;
  const st = lstatOrNull(manifestFile(paths)); // a rename keeps inode, size and mtime
  if (st) {
    const { stored, files, dirs } = staged;
    parsed = { file: manifestFile(paths), key: keyOf(st), stored, files, dirs };
  }
  staged = undefined;
}

const keyOf = (st: Stats): string => `${st.ino}:${st.size}:${st.mtimeMs}`;

/** The manifest file as it is (null: none), to put back with `writeManifestBytes`. */
export function readManifestBytes(paths: NodePaths): Buffer | null {
  try {
    return readFileSync(manifestFile(paths));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export function writeManifestBytes(paths: NodePaths, bytes: Buffer | null, tag: string): void {
  if (bytes === null) {
    rmSync(manifestFile(paths), { force: true });
    return;
  }
  const tmp = `${manifestFile(paths)}.tmp-${tag}`;
  try {
    writeFileSync(tmp, bytes);
    commitNodeManifest(paths, tmp);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

export const signatureOf = (st: Stats): Signature => [
  st.ino,
  st.size,
  st.mtimeMs,
  st.mode & 0o7777,
];

function sameSignature(a: Signature, b: unknown): boolean {
  return Array.isArray(b) && b.length === 4 && a.every((v, i) => v === b[i]);
}

/** The entry's lstat, or null when there is none (or it cannot be reached). */
export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
