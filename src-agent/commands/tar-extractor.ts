// Writes tar entries under one root folder. Only files and folders are created: links
// could point a later entry outside the root, so they are counted as skipped instead.
// Each file is hashed as it is written, so the manifest costs no second read.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fchmodSync,
  futimesSync,
  mkdirSync,
  openSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { dirname, join, posix } from 'node:path';
import type { ManifestEntry } from '../wire/protocol';
import type { TarEntry } from '../wire/tar/reader';
import { workspaceMode } from '../wire/workspace-manifest';

export interface ExtractedFile extends ManifestEntry {
  path: string;
}

export class TarExtractor {
  private files = 0;
  private bytes = 0;
  private skipped = 0;
  private readonly dirs: { path: string; mode: number; mtime: Date | undefined }[] = [];
  private readonly made = new Set<string>();

  /** Set by `useFlatNames`: the next numbered name. */
  private nextName: number | undefined;
  /** With flat names: each file's path → its name under the root. */
  readonly placed = new Map<string, string>();

  constructor(private readonly root: string) {}

  /** From now on files land directly under the root as `0`, `1`, … (see `placed`) instead
   *  of at their paths: a delta's few files then need no folders made, and on some file
   *  systems a mkdir costs as much as writing a small file. */
  useFlatNames(): void {
    this.nextName ??= 0;
  }

  /** Writes the entry; for a file, returns what was written. */
  async extract({ header, body }: TarEntry): Promise<ExtractedFile | undefined> {
    const rel = safeRelativePath(header.path);
    if (rel === '' || (header.type !== 'file' && header.type !== 'directory')) {
      if (rel !== '') this.skipped++;
      body.resume();
      return undefined;
    }
    if (header.type === 'directory') {
      this.makeDirectory(rel, header.mode, header.mtime);
      return undefined;
    }
    const name = this.nextName === undefined ? rel : String(this.nextName++);
    if (this.nextName !== undefined) this.placed.set(rel, name);
    const target = join(this.root, name);
    const hash = createHash('sha256');
    let size = 0;
    const mode = workspaceMode(header.mode); // no setuid/setgid, nothing for group/others
    await inEntry(rel, async () => {
      this.ensureFolder(dirname(target));
      // Synchronous writes: this one-shot process has nothing else to do meanwhile, and a
      // thread-pool round trip per chunk and per file costs more than the write itself.
      const fd = openSync(target, this.nextName === undefined ? 'w' : 'wx', 0o600);
      try {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          hash.update(chunk);
          size += chunk.length;
          for (let at = 0; at < chunk.length;) at += writeSync(fd, chunk, at);
        }
        fchmodSync(fd, mode);
        futimesSync(fd, header.mtime, header.mtime);
      } finally {
        closeSync(fd);
      }
    });
    this.files++;
    this.bytes += size;
    return { path: rel, size, mode, sha256: hash.digest('hex') };
  }

  /** A folder of the workspace; its mode and time are set by `finishDirectories`. */
  makeDirectory(rel: string, mode: number, mtime?: Date): void {
    const target = join(this.root, rel);
    inEntrySync(rel, () => this.ensureFolder(target));
    this.dirs.push({ path: target, mode, mtime });
  }

  /** mkdir -p, remembering what exists: most files land in a folder made just before. */
  ensureFolder(path: string): void {
    if (this.made.has(path)) return;
    mkdirSync(path, { recursive: true });
    this.made.add(path);
  }

  /** Folder modes and times last (writing into a folder changes its mtime), deepest first.
   *  The owner keeps rwx so the workspace can always be replaced; nobody else gets any. */
  finishDirectories(): void {
    for (const d of [...this.dirs].reverse()) {
      chmodSync(d.path, workspaceMode(d.mode) | 0o700);
      if (d.mtime) utimesSync(d.path, d.mtime, d.mtime);
    }
  }

  /** Relative paths of the folder entries seen. */
  directoryPaths(): string[] {
    return this.dirs.map((d) => posix.normalize(d.path.slice(this.root.length + 1)));
  }

  totals(): { files: number; bytes: number; skipped: number } {
    return { files: this.files, bytes: this.bytes, skipped: this.skipped };
  }
}

/** The entry's path relative to the root ('' for the root itself). Absolute paths and
 *  paths that climb out with `..` are refused: the whole archive is then rejected. */
export function safeRelativePath(path: string): string {
  const norm = posix.normalize(path).replace(/\/+$/, '');
  if (path.startsWith('/') || path.includes('\0') || norm === '..' || norm.startsWith('../')) {
    const err = new Error(
      `refusing tar entry ${JSON.stringify(path)}: it would land outside the workspace`,
    );
    throw Object.assign(err, { code: 'unsafe_path', entryPath: path });
  }
  return norm === '.' ? '' : norm;
}

/** Throws unless each path is already its own safe, normalized relative form (one that
 *  would land outside the workspace: `unsafe_path`, from `safeRelativePath`). For paths a
 *  header or manifest lists, which must name entries exactly. */
export function checkListedPaths(paths: Iterable<string>): void {
  for (const p of paths) {
    if (p === '' || safeRelativePath(p) !== p) throw new Error(`bad path ${JSON.stringify(p)}`);
  }
}

/** Tags an I/O failure with the workspace path it happened to (for the error message). */
export async function inEntry<T>(rel: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw tagEntry(err, rel);
  }
}

export function inEntrySync<T>(rel: string, work: () => T): T {
  try {
    return work();
  } catch (err) {
    throw tagEntry(err, rel);
  }
}

/** Only system errors (they carry `syscall`) are tagged: a stream error that surfaces
 *  inside an entry (a truncated archive) keeps meaning a bad archive. */
function tagEntry(err: unknown, rel: string): unknown {
  const e = err as { entryPath?: string; syscall?: unknown };
  if (typeof err === 'object' && err !== null && typeof e.syscall === 'string') {
    e.entryPath ??= rel;
  }
  return err;
}
