// The local side of an incremental push: the manifest (path → size, mode, sha256) of what a
// scan would send, hashed through the persistent hash cache, and its diff against the
// node's manifest.
import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { ManifestEntry } from '../../../src-agent/wire/protocol';
import {
  workspaceMode,
  comparePaths,
  manifestDigest,
  type ManifestFiles,
  sameEntry,
} from '../../../src-agent/wire/workspace-manifest';
import type { FileKey, HashCache } from './hash-cache';
import { createLimiter } from './limiter';
import { isSymlinkRefusal, READ_NO_FOLLOW } from './no-follow';

export type { ManifestFiles } from '../../../src-agent/wire/workspace-manifest';

/** What the manifest is built from: a `WorkspaceScan`, or the plan the core keeps of one. */
export interface ManifestSource {
  root: string;
  dirs: string[];
  files: { path: string }[];
}

/** A file as it was when hashed: what a later read must still find. */
export interface LocalFile extends FileKey {
  path: string;
  mode: number;
}

export interface LocalManifest {
  files: ManifestFiles;
  dirs: string[];
  /** `manifestDigest` of files and dirs: what the node reports once it holds the same. */
  digest: string;
  /** The stat each hash belongs to, by path. */
  stats: Map<string, LocalFile>;
  /** Files read and hashed now (the rest came from the cache). */
  hashed: number;
}

export interface ManifestOptions {
  cache: HashCache;
  /** Files hashed at once; each holds one open file. */
  concurrency?: number;
  onHashed?: (done: number, total: number) => void;
  now?: () => number;
}

// Parallel reads keep an SSD busy while the one main thread hashes; far below the open-file
// limit of 256 on macOS.
const HASH_CONCURRENCY = 8;

/** Stats every file (vanished ones are left out: no longer part of the workspace). */
export async function statFiles(source: ManifestSource): Promise<Map<string, LocalFile>> {
  const stats = new Map<string, LocalFile>();
  for (const [i, f] of source.files.entries()) {
    if (i % 256 === 255) await new Promise((resolve) => setImmediate(resolve)); // stay responsive
    // A scan already knows each file's stat; anything else is stat-ed now (synchronously:
    // microseconds each, where a promise round trip per file dominated).
    if (isStatted(f)) {
      stats.set(f.path, localFile(f.path, f));
      continue;
    }
    try {
      const st = lstatSync(join(source.root, f.path));
      if (st.isFile()) stats.set(f.path, localFile(f.path, st));
    } catch (err) {
      ignoreVanished(err);
    }
  }
  return stats;
}

function isStatted(f: {
  path: string;
}): f is { path: string; size: number; mtimeMs: number; ino: number; mode: number } {
  const x = f as { size?: unknown; mtimeMs?: unknown; ino?: unknown; mode?: unknown };
  return (
    typeof x.size === 'number' &&
    typeof x.mtimeMs === 'number' &&
    typeof x.ino === 'number' &&
    typeof x.mode === 'number'
  );
}

/**
 * The manifest of `source`: every file's sha256, from the cache where its (size, mtime,
 * inode) are unchanged, else read now (bounded concurrency). `stats` (from `statFiles`)
 * saves the stat pass when the caller already made it.
 */
export async function buildManifest(
  source: ManifestSource,
  opts: ManifestOptions,
  stats?: Map<string, LocalFile>,
): Promise<LocalManifest> {
  const known = stats ?? (await statFiles(source));
  const limit = createLimiter(opts.concurrency ?? HASH_CONCURRENCY);
  const now = opts.now ?? Date.now;
  const files: ManifestFiles = new Map();
  const final = new Map<string, LocalFile>();
  let hashed = 0;
  let done = 0;
  // Cache hits first, synchronously: in a re-push nearly every file is one, and a promise
  // per file cost more than the look-up.
  const misses: LocalFile[] = [];
  for (const f of known.values()) {
    const sha256 = opts.cache.peek(join(source.root, f.path), f);
    if (sha256 === undefined) {
      misses.push(f);
      continue;
    }
    files.set(f.path, { size: f.size, mode: f.mode, sha256 });
    final.set(f.path, f);
    done++;
  }
  if (done > 0) opts.onHashed?.(done, known.size);
  await Promise.all(
    misses.map((f) =>
      limit(async () => {
        const abs = join(source.root, f.path);
        let file = f;
        const sha256 = await opts.cache.hashOnce(abs, f, async () => {
          const h = await hashFile(abs, now);
          if (!h) return undefined;
          hashed++;
          file = { ...h.file, path: f.path };
          return { sha256: h.sha256, key: h.file, readStartedMs: h.readStartedMs };
        });
        done++;
        opts.onHashed?.(done, known.size);
        if (sha256 === undefined) return; // vanished since the stat
        files.set(f.path, { size: file.size, mode: file.mode, sha256 });
        final.set(f.path, file);
      }),
    ),
  );
  const sorted = new Map([...files].sort(([a], [b]) => comparePaths(a, b)));
  return {
    files: sorted,
    dirs: source.dirs,
    digest: manifestDigest(sorted, source.dirs),
    stats: final,
    hashed,
  };
}

export interface ManifestDiff {
  /** New files and files whose content or mode differ; each is sent whole. */
  changed: string[];
  /** Files the node has and the local folder does not. A rename is a deletion + a new file. */
  deletions: string[];
}

export function diffManifests(local: ManifestFiles, remote: ManifestFiles): ManifestDiff {
  const changed: string[] = [];
  const deletions: string[] = [];
  for (const [path, entry] of local) {
    const theirs = remote.get(path);
    if (!theirs || !sameEntry(entry, theirs)) changed.push(path);
  }
  for (const path of remote.keys()) if (!local.has(path)) deletions.push(path);
  return { changed: changed.sort(comparePaths), deletions: deletions.sort(comparePaths) };
}

/** Reads a file once, hashing it; undefined when it vanished. The stat is the open file's. */
async function hashFile(
  abs: string,
  now: () => number,
): Promise<{ sha256: string; file: Omit<LocalFile, 'path'>; readStartedMs: number } | undefined> {
  const handle = await open(abs, READ_NO_FOLLOW).catch(ignoreVanished);
  if (!handle) return undefined;
  try {
    const st = await handle.stat();
    const readStartedMs = now();
    const hash = createHash('sha256');
    if (st.size > 0) {
      for await (const chunk of handle.createReadStream({
        start: 0,
        end: st.size - 1,
        autoClose: false,
      })) {
        hash.update(chunk as Buffer);
      }
    }
    return { sha256: hash.digest('hex'), file: localFile('', st), readStartedMs };
  } finally {
    await handle.close();
  }
}

export function localFile(
  path: string,
  st: { size: number; mtimeMs: number; ino: number; mode: number },
): LocalFile {
  return { path, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, mode: workspaceMode(st.mode) };
}

/** A file gone, or turned into a symlink (not followed), since the scan. */
export function ignoreVanished(err: unknown): undefined {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT' || isSymlinkRefusal(err)) return undefined;
  throw err;
}

export type { ManifestEntry };
