// A delta applied to D/workspace where it stands, made all-or-nothing by a redo journal.
// Rebuilding the folder tree beside the old one (hard links and a swap) costs a mkdir per
// folder and a link per file, which on some file systems is most of a re-push; this moves
// only the files that changed. Everything is prepared first (the files staged and checked,
// the new manifest written to a temporary file); renaming the journal into place is the
// commit point. From there `finishPendingApply` completes the change, now or after a crash,
// before anything reads the manifest or starts a job: a workspace is the old one or the new
// one, never a mix (docs/agent-protocol.md). The result is exactly the pushed workspace:
// whatever else is in the folder (files a job made) goes too.
import {
  type Dirent,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import type { NodePaths } from '../wire/paths';
import {
  commitNodeManifest,
  lstatOrNull,
  manifestFile,
  type NodeManifest,
  type Signature,
  signatureOf,
  stageNodeManifest,
} from './node-manifest';
import type { ReceivedWorkspace } from './workspace-receiver';

/** The journal: what is left to do, every step safe to repeat. */
interface ApplyJournal {
  version: 1;
  /** The staging folder (a name in D) holding the received files. */
  staging: string;
  /** The new manifest, written beside the manifest (a name in D). */
  manifest: string;
  /** Files and links to remove (paths in the workspace). */
  deletions: string[];
  /** Folders to remove with all they hold: folders the new workspace lacks. */
  trees: string[];
  /** Folders to make, parents first. */
  mkdirs: string[];
  /** [name in staging, path in the workspace]: each received file's move. */
  moves: [string, string][];
}

export const journalFile = (paths: NodePaths): string => join(paths.dir, 'workspace.apply.json');

/** The folders of a workspace and what each holds, as read by `listWorkspace`. */
export type Listing = Map<string, Dirent[]>;

/** What `serve-workspace` checks ahead of a push, while the app scans its own side: the
 *  workspace's manifest (null: none to trust) and its listing. */
export interface PreparedWorkspace {
  manifest: NodeManifest | null;
  listing: Listing;
}

/** Every real folder of the workspace (links are not followed) and what it holds. */
export function listWorkspace(root: string): Listing {
  const listing: Listing = new Map();
  const walk = (rel: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(rel === '' ? root : join(root, rel), { withFileTypes: true });
    } catch {
      return; // gone, or not a folder: planDelta reads it again
    }
    listing.set(rel, entries);
    for (const e of entries) if (e.isDirectory()) walk(rel === '' ? e.name : `${rel}/${e.name}`);
  };
  walk('');
  return listing;
}

/** Applies a received delta (see the top of this file); returns how many files of the
 *  previous workspace it deleted. */
export function applyDelta(
  paths: NodePaths,
  staging: string,
  ws: ReceivedWorkspace,
  tag: string,
  listing?: Listing,
): number {
  const root = paths.workspace;
  const plan = planDelta(root, ws, listing);
  // Renames keep inode, size, mtime and mode: every signature is known before the change.
  const known = new Map<string, Signature>();
  for (const [path, sig] of ws.base?.manifest.signatures ?? []) known.set(path, sig);
  for (const path of ws.received.keys())
    known.set(path, signatureOf(lstatSync(join(staging, ws.stagedName(path)))));
  const manifest = stageNodeManifest(paths, root, ws.files, ws.dirs, tag, { known });
  const journal: ApplyJournal = {
    version: 1,
    staging: basename(staging),
    manifest: basename(manifest),
    ...plan,
    moves: [...ws.received.keys()].map((path) => [ws.stagedName(path), path]),
  };
  const tmp = `${journalFile(paths)}.tmp-${tag}`;
  try {
    writeFileSync(tmp, `${JSON.stringify(journal)}\n`);
    renameSync(tmp, journalFile(paths)); // the commit point
  } catch (err) {
    rmSync(tmp, { force: true });
    rmSync(manifest, { force: true });
    throw err;
  }
  redo(paths, journal);
  return ws.base?.deletions.length ?? 0;
}

/**
 * Completes a delta whose journal was committed but not finished (the agent died halfway).
 * Call before reading the workspace manifest or starting a job. Returns whether there was
 * one. A journal that cannot be read was never committed (the rename is atomic) or is
 * damaged: it is set aside and the manifest removed, so the next push is a full one.
 */
export function finishPendingApply(paths: NodePaths): boolean {
  let raw: string;
  try {
    raw = readFileSync(journalFile(paths), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  let journal: ApplyJournal;
  try {
    journal = JSON.parse(raw) as ApplyJournal;
    if (journal.version !== 1 || !Array.isArray(journal.moves)) throw new Error('unknown');
  } catch {
    rmSync(manifestFile(paths), { force: true });
    rmSync(journalFile(paths), { force: true });
    return true;
  }
  redo(paths, journal);
  return true;
}

/** Every step tolerates having been done before: a crash anywhere in here is finished by
 *  running it again. */
function redo(paths: NodePaths, j: ApplyJournal): void {
  const root = paths.workspace;
  for (const path of j.deletions) {
    try {
      unlinkSync(join(root, path));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  for (const dir of j.trees) rmSync(join(root, dir), { recursive: true, force: true });
  for (const dir of j.mkdirs) mkdirSync(join(root, dir), { recursive: true, mode: 0o755 });
  const staging = join(paths.dir, j.staging);
  for (const [name, path] of j.moves) {
    try {
      renameSync(join(staging, name), join(root, path));
    } catch (err) {
      // Moved already, before the crash.
      if (
        (err as NodeJS.ErrnoException).code !== 'ENOENT' ||
        !lstatOrNull(join(root, path))?.isFile()
      )
        throw err;
    }
  }
  try {
    commitNodeManifest(paths, join(paths.dir, j.manifest));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // renamed already
  }
  unlinkSync(journalFile(paths));
  rmSync(staging, { recursive: true, force: true });
}

/**
 * What must go and what must be made so that the workspace's folders and files are those
 * of the new manifest: a walk of the folders the new workspace keeps, never following a
 * link. A file the new workspace has stays (the delta's base check vouched for it, or a
 * received file replaces it); anything else in a kept folder goes, and a folder the new
 * workspace lacks goes whole.
 */
function planDelta(
  root: string,
  ws: ReceivedWorkspace,
  listing?: Listing,
): Pick<ApplyJournal, 'deletions' | 'trees' | 'mkdirs'> {
  const dirs = new Set(ws.dirs);
  const deletions: string[] = [];
  const trees: string[] = [];
  const present = new Set<string>();
  const walk = (rel: string) => {
    const entries =
      listing?.get(rel) ??
      readdirSync(rel === '' ? root : join(root, rel), { withFileTypes: true });
    for (const e of entries) {
      const path = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (dirs.has(path)) {
          present.add(path);
          walk(path);
        } else trees.push(path);
      } else if (!(e.isFile() && ws.files.has(path))) deletions.push(path);
    }
  };
  walk('');
  // Sorted, a folder comes before the folders in it.
  const mkdirs = [...dirs].filter((d) => !present.has(d)).sort();
  return { deletions, trees, mkdirs };
}
