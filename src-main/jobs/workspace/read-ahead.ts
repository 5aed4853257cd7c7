// Opens the files of a push one after another. Small files (nearly all of a code workspace)
// are read with synchronous calls: a few microseconds each, where four promise round trips
// through the thread pool per file (open, stat, read, close) cost ~100 µs and dominated a
// push of thousands of files. Large files stay open and are streamed by the caller.
import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { isSymlinkRefusal, READ_NO_FOLLOW } from './no-follow';

export interface OpenedFile {
  path: string;
  /** The open file's own stat: what is sent and what its hash belongs to. */
  st: Stats;
  /** When reading began (for the hash cache's racy-timestamp rule). */
  openedAtMs: number;
  /** The whole content of a small file; a large one is streamed from `fd`. */
  data?: Buffer;
  /** An open descriptor of a large file; release it with `closeOpened`. */
  fd?: number;
}

const SMALL_FILE_BYTES = 256 * 1024;

/** Yields each path's opened file in order; vanished ones, non-files and paths that have
 *  become symlinks (never followed: no-follow.ts) are skipped.
 *  The caller releases each with `closeOpened` once it is sent. */
export async function* readAhead(
  root: string,
  paths: readonly string[],
  now: () => number = Date.now,
): AsyncGenerator<OpenedFile> {
  for (const path of paths) {
    const opened = openOne(root, path, now);
    if (opened) yield opened;
  }
}

export function closeOpened(file: OpenedFile): void {
  if (file.fd === undefined) return;
  const fd = file.fd;
  file.fd = undefined;
  closeSync(fd);
}

function openOne(root: string, path: string, now: () => number): OpenedFile | undefined {
  const openedAtMs = now();
  let fd: number;
  try {
    fd = openSync(join(root, path), READ_NO_FOLLOW);
  } catch (err) {
    if (isVanished(err)) return undefined;
    throw err;
  }
  let keepOpen = false;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    if (st.size > SMALL_FILE_BYTES) {
      keepOpen = true;
      return { path, st, openedAtMs, fd };
    }
    const data = Buffer.allocUnsafe(st.size);
    for (let at = 0; at < st.size;) {
      const n = readSync(fd, data, at, st.size - at, at);
      if (n === 0) throw new Error(`${path} shrank while it was being read`);
      at += n;
    }
    return { path, st, openedAtMs, data };
  } finally {
    if (!keepOpen) closeSync(fd);
  }
}

function isVanished(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || isSymlinkRefusal(err);
}
