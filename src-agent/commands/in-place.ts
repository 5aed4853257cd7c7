// `recv-workspace --in-place`: the received files move into the live D/workspace one by one,
// so a running job keeps its cwd (the folder keeps its inode) and every file it made. Each
// file is replaced atomically (a rename over the old one); the workspace as a whole is not:
// while this runs the job can see some files new and some old. Nothing is changed until
// every check has passed; from the first change on, the manifest is marked partial, so a
// failure or a crash halfway makes the next push a full one (docs/agent-protocol.md).
import { lstatSync, mkdirSync, readdirSync, renameSync, rmdirSync, unlinkSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { NodePaths } from '../wire/paths';
import type { ManifestFiles } from '../wire/workspace-manifest';
import {
  commitNodeManifest,
  lstatOrNull,
  readManifestBytes,
  readRawManifest,
  type Signature,
  signatureOf,
  stageNodeManifest,
  writeManifestBytes,
} from './node-manifest';
import type { ReceivedWorkspace } from './workspace-receiver';

/** What an in-place push changes in D/workspace. */
interface Change {
  /** The new manifest. */
  files: ManifestFiles;
  dirs: string[];
  /** Files in staging, to be renamed over their place in the workspace. */
  incoming: string[];
  /** Files of the previous workspace the new one lacks; each is removed if still a file. */
  deletions: string[];
  /** Folders of the previous workspace the new one lacks; each is removed if empty. */
  oldDirs: string[];
  /** Signatures of the files a delta left where they were, as checked before it. */
  kept: Map<string, Signature>;
  /** Everything the previous manifest listed plus the new one: what a partial manifest
   *  lists, so the next full push can still delete what is stale. */
  union: { files: ManifestFiles; dirs: string[] };
}

/** Moves `ws` (received into `staging`) into the live workspace; returns the files deleted. */
export function applyInPlace(
  paths: NodePaths,
  staging: string,
  ws: ReceivedWorkspace,
  tag: string,
): number {
  const change = planChange(paths, ws);
  checkConflicts(paths.workspace, change);
  const before = readManifestBytes(paths);
  // Staged files keep inode, size, mtime and mode when renamed: their signature is known now,
  // before the job could touch them.
  const signatures = new Map(change.kept);
  for (const path of change.incoming)
    signatures.set(path, signatureOf(lstatSync(join(staging, ws.stagedName(path)))));

  const partial = stageNodeManifest(
    paths,
    paths.workspace,
    change.union.files,
    change.union.dirs,
    `${tag}-partial`,
    { isPartial: true },
  );
  commitNodeManifest(paths, partial);
  let hasChanged = false;
  const makeFolder = (rel: string) => {
    const made = mkdirSync(join(paths.workspace, rel), { recursive: true, mode: 0o755 });
    if (made !== undefined) hasChanged = true;
  };
  try {
    const deleted = removeStale(paths.workspace, change, () => (hasChanged = true));
    for (const dir of change.dirs) makeFolder(dir);
    for (const path of change.incoming) {
      makeFolder(posix.dirname(path));
      renameSync(join(staging, ws.stagedName(path)), join(paths.workspace, path));
      hasChanged = true;
    }
    const manifest = stageNodeManifest(paths, paths.workspace, change.files, change.dirs, tag, {
      known: signatures,
    });
    commitNodeManifest(paths, manifest);
    return deleted;
  } catch (err) {
    if (!hasChanged) restoreManifest(paths, before, tag);
    throw Object.assign(err as Error, { isPartial: hasChanged });
  }
}

function planChange(paths: NodePaths, ws: ReceivedWorkspace): Change {
  const incoming = [...ws.received.keys()];
  const previous = readRawManifest(paths) ?? { files: new Map(), dirs: [] };
  const union = {
    files: new Map([...previous.files, ...ws.files]),
    dirs: [...new Set([...previous.dirs, ...ws.dirs])],
  };
  const newDirs = new Set(ws.dirs);
  if (ws.base) {
    // A delta: its base was checked, so the files it keeps are as they were written.
    const kept = new Map<string, Signature>();
    for (const path of ws.files.keys()) {
      const sig = ws.base.manifest.signatures.get(path);
      if (!ws.received.has(path) && sig) kept.set(path, sig);
    }
    const oldDirs = ws.base.manifest.dirs.filter((d) => !newDirs.has(d));
    const deletions = ws.base.deletions;
    return { files: ws.files, dirs: ws.dirs, incoming, deletions, oldDirs, kept, union };
  }
  // A full push: everything the last manifest listed and the new workspace lacks goes, also
  // a listed file the job has since edited (it is the app's file, and the app dropped it).
  const deletions = [...previous.files.keys()].filter((p) => !ws.files.has(p));
  const oldDirs = previous.dirs.filter((d) => !newDirs.has(d));
  return { files: ws.files, dirs: ws.dirs, incoming, deletions, oldDirs, kept: new Map(), union };
}

/**
 * Refuses, before anything changes, a push that would have to replace something the job
 * made: a folder where a file goes, or a file or symlink where a folder goes (a symlink
 * is never followed: it could lead out of the workspace). What the push itself deletes
 * does not count, unless the job put something of its own into a folder that must go.
 */
function checkConflicts(root: string, change: Change): void {
  const goes = new Set(change.deletions);
  const goesDir = new Set(change.oldDirs);
  const kinds = new Map<string, 'dir' | 'other' | 'none'>();
  const kindOf = (rel: string) => {
    let kind = kinds.get(rel);
    if (kind === undefined) {
      const st = lstatOrNull(join(root, rel));
      kind = st === null ? 'none' : st.isDirectory() ? 'dir' : 'other';
      kinds.set(rel, kind);
    }
    return kind;
  };
  /** What would be left in a folder once the push removed its part: the first path. */
  const leftIn = (dir: string): string | undefined => {
    for (const name of readdirSync(join(root, dir))) {
      const child = `${dir}/${name}`;
      if (goes.has(child) && kindOf(child) !== 'dir') continue;
      const inner = goesDir.has(child) && kindOf(child) === 'dir' ? leftIn(child) : child;
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  const check = (rel: string, isDir: boolean) => {
    for (const folder of parentsOf(rel)) {
      const kind = kindOf(folder);
      if (kind === 'none') return; // everything below it is missing too
      if (kind === 'other' && !goes.has(folder)) throw conflict(folder, rel, 'a file or link');
    }
    const kind = kindOf(rel);
    if (isDir && kind === 'other' && !goes.has(rel)) throw conflict(rel, rel, 'a file or link');
    if (!isDir && kind === 'dir') {
      const left = goesDir.has(rel) ? leftIn(rel) : rel;
      if (left !== undefined) throw conflict(left, rel, left === rel ? 'a folder' : 'a file');
    }
  };
  for (const path of change.incoming) check(path, false);
  for (const dir of change.dirs) check(dir, true);
}

/** Deletes the stale files and then the stale folders that are empty; returns how many
 *  files went. A path under something that is not a real folder is left alone. */
function removeStale(root: string, change: Change, onChange: () => void): number {
  let deleted = 0;
  for (const path of change.deletions) {
    if (!parentsOf(path).every((d) => lstatOrNull(join(root, d))?.isDirectory() === true)) continue;
    const st = lstatOrNull(join(root, path));
    if (st === null || st.isDirectory()) continue;
    unlinkSync(join(root, path));
    onChange();
    deleted++;
  }
  // Deepest first, so a folder emptied by removing its subfolders goes too.
  for (const dir of [...change.oldDirs].sort().reverse()) {
    if (lstatOrNull(join(root, dir))?.isDirectory() !== true) continue;
    try {
      rmdirSync(join(root, dir));
      onChange();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw err;
    }
  }
  return deleted;
}

/** Nothing changed after all: the manifest goes back to its exact bytes (or away, when
 *  there was none), so the workspace and its manifest are as they were. */
function restoreManifest(paths: NodePaths, bytes: Buffer | null, tag: string): void {
  try {
    writeManifestBytes(paths, bytes, `${tag}-back`);
  } catch {
    // The partial manifest stays: the next push is full, which is correct, only slower.
  }
}

/** `a/b/c` → `a`, `a/b`. */
function parentsOf(rel: string): string[] {
  const parts = rel.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

function conflict(at: string, path: string, what: string): Error {
  const message =
    `cannot update ${path} in place: the node has ${what} at ${at} that is not part of ` +
    'the pushed workspace (the job made it?); remove it on the node, or rename it locally';
  return Object.assign(new Error(message), { code: 'in_place_conflict', entryPath: at });
}
