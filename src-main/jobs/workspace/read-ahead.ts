// Opens the files of a push in order while the previous ones are still being sent, so a
// workspace of many small files is not one open/stat/read round trip after another.
import type { Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { ignoreVanished } from './manifest';

export interface OpenedFile {
  path: string;
  /** The open file's own stat: what is sent and what its hash belongs to. */
  st: Stats;
  /** When reading began (for the hash cache's racy-timestamp rule). */
  openedAtMs: number;
  /** The whole content of a small file; a large one is streamed from `handle`. */
  data?: Buffer;
  handle?: FileHandle;
}

// Small files are read whole during the look-ahead: 16 × 256 KiB is at most 4 MiB held.
const SMALL_FILE_BYTES = 256 * 1024;
const AHEAD = 16;

/** Yields each path's opened file in order; vanished ones (and non-files) are skipped.
 *  The caller closes `handle` when it has one. */
export async function* readAhead(
  root: string,
  paths: readonly string[],
  now: () => number = Date.now,
): AsyncGenerator<OpenedFile> {
  const queue: Promise<OpenedFile | undefined>[] = [];
  let next = 0;
  const fill = () => {
    while (queue.length < AHEAD && next < paths.length) {
      const opening = openOne(root, paths[next++]!, now);
      opening.catch(() => {}); // surfaced when its turn comes
      queue.push(opening);
    }
  };
  try {
    fill();
    while (queue.length > 0) {
      const opened = await queue.shift()!;
      fill();
      if (opened) yield opened;
    }
  } finally {
    for (const p of queue.splice(0))
      void p.then(
        (o) => o?.handle?.close(),
        () => {},
      );
  }
}

async function openOne(
  root: string,
  path: string,
  now: () => number,
): Promise<OpenedFile | undefined> {
  const openedAtMs = now();
  const handle = await open(join(root, path), 'r').catch(ignoreVanished);
  if (!handle) return undefined;
  try {
    const st = await handle.stat();
    if (!st.isFile()) {
      await handle.close();
      return undefined;
    }
    if (st.size > SMALL_FILE_BYTES) return { path, st, openedAtMs, handle };
    const data = Buffer.alloc(st.size);
    for (let at = 0; at < st.size;) {
      const { bytesRead } = await handle.read(data, at, st.size - at, at);
      if (bytesRead === 0) throw new Error(`${path} shrank while it was being read`);
      at += bytesRead;
    }
    await handle.close();
    return { path, st, openedAtMs, data };
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}
