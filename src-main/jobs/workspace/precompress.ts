// Compresses a push's large text-like files ahead of the tar, while the link is busy with
// bytes that go as they are (a checkpoint, an archive). Inline, a segment is compressed
// only when the tar reaches it, at whatever quality keeps a link that is already waiting
// busy (compress-pace.ts); on a loaded machine that is a fast, loose one. The bytes after a
// long raw stretch can be had early instead: the CPU is mostly idle while raw bytes drain,
// so they are compressed then and kept until the encoder reaches them, at the densest
// quality one compression keeps ahead of the link with (`aheadQualityFor`: q5 on a
// 100 Mbit/s link, q1 on 1 Gbit/s), which the encoder names when it starts this.
//
// A file is cut into chunks of the encoder's segment size from its first data byte; the
// last chunk carries the tar padding after it, so each chunk is exactly one of the
// encoder's segments (push-encoder.ts cuts there). The encoder takes chunk k of a file as
// it reaches it and uses it only if its digest is that of the bytes in hand: a file that
// changed meanwhile is compressed inline, as any other. One worker, one chunk at a time,
// and at most `budgetBytes` of compressed chunks held. The file is read a second time for
// this (the tar reads it to hash and send it), most likely from the page cache.
import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';
import { padding } from '../../../src-agent/wire/tar/header';
import { KEEP_RATIO } from './compress-policy';
import { READ_NO_FOLLOW } from './no-follow';

const compress = promisify(brotliCompress);

/** The densest quality of chunks made ahead: q5 (ratio 0.203 on a CSV at 43 MB/s), as
 *  dense as inline compression gets on an idle machine. Denser (q6 0.200, q7 0.197 at
 *  30 MB/s) measured no faster on the shaped bench: the CPU they take is the link's
 *  (bench/push-shaped.md). */
export const AHEAD_QUALITY = 5;
/** Files smaller than this are left to inline compression. */
export const AHEAD_MIN_FILE_BYTES = 4 * 1024 * 1024;
const DEFAULT_BUDGET_BYTES = 32 * 1024 * 1024;

/** A chunk compressed ahead: the sha256 of its bytes, and what they compressed to, or
 *  undefined where they did not shrink below `KEEP_RATIO` (they go as they are). */
export interface AheadChunk {
  sha256: Buffer;
  out: Buffer | undefined;
  /** The quality it was compressed at. */
  quality: 1 | 4 | 5;
}

export interface AheadFile {
  path: string;
  size: number;
}

export class Precompressor {
  private readonly byPath = new Map<string, number>();
  /** Chunks made or in the making, by file index, then chunk index. */
  private readonly made = new Map<number, Map<number, Promise<AheadChunk | undefined>>>();
  /** Where the encoder is: file index and the chunk it took last. */
  private reached = { file: -1, chunk: -1 };
  private heldBytes = 0;
  private wakeWorker: (() => void) | undefined;
  private isClosed = false;
  /** The quality chunks are made at from now on; undefined until started. The encoder
   *  moves it as the link's rate shows (a fast link's first reading is low). */
  quality: 1 | 4 | 5 | undefined;
  readonly totals = { chunks: 0, used: 0 };

  /** `knownRate`: what earlier pushes to this endpoint measured of its link (bytes/s), from
   *  which the encoder may choose the quality before this push has measured its own. */
  constructor(
    private readonly root: string,
    private readonly files: readonly AheadFile[],
    private readonly chunkBytes: number,
    private readonly budgetBytes = DEFAULT_BUDGET_BYTES,
    readonly knownRate?: number,
  ) {
    files.forEach((f, i) => this.byPath.set(f.path, i));
  }

  /** Whether `path` is one of the files this compresses ahead. */
  has(path: string): boolean {
    return this.byPath.has(path);
  }

  /** Begins (once), at `quality`: the link is busy with raw bytes, and slower than one
   *  compression at that quality reads. */
  start(quality: 1 | 4 | 5 = AHEAD_QUALITY): void {
    if (this.quality !== undefined || this.isClosed) return;
    this.quality = quality;
    void this.work().catch(() => {
      /* a file that cannot be read now is read (and its failure reported) by the push */
    });
  }

  /** Chunk `index` of `path` as compressed ahead, or undefined (not reached, not worth
   *  it): the encoder then compresses it itself. The worker skips what the encoder has
   *  passed. */
  async take(path: string, index: number): Promise<AheadChunk | undefined> {
    const file = this.byPath.get(path);
    if (file === undefined) return undefined;
    this.reached = { file, chunk: index };
    const pending = this.made.get(file)?.get(index);
    this.made.get(file)?.delete(index);
    // Whatever was made for chunks behind the encoder is no use any more.
    for (const [f, chunks] of this.made) {
      for (const [k, p] of chunks) {
        if (f < file || (f === file && k < index)) {
          chunks.delete(k);
          void p.then(
            (c) => this.release(c),
            () => {}, // a chunk that failed holds nothing
          );
        }
      }
    }
    if (!pending) return undefined;
    const chunk = await pending.catch(() => undefined); // unreadable now: the push reads it
    this.release(chunk);
    if (chunk) this.totals.used++;
    return chunk;
  }

  /** Stops the worker and drops what it holds. */
  close(): void {
    this.isClosed = true;
    this.made.clear();
    this.wake();
  }

  private async work(): Promise<void> {
    for (let f = 0; f < this.files.length && !this.isClosed; f++) {
      if (f < this.reached.file) continue;
      const { path, size } = this.files[f]!;
      const handle = await open(join(this.root, path), READ_NO_FOLLOW);
      try {
        const count = Math.max(1, Math.ceil(size / this.chunkBytes));
        const chunks = new Map<number, Promise<AheadChunk | undefined>>();
        this.made.set(f, chunks);
        for (let k = 0; k < count && !this.isClosed; k++) {
          if (f < this.reached.file) break;
          if (f === this.reached.file && k <= this.reached.chunk) continue;
          await this.roomForMore();
          if (this.isClosed) break;
          const making = this.makeChunk(handle, size, k, count);
          chunks.set(k, making);
          const chunk = await making;
          // A first chunk that does not shrink: the file is not worth it (the encoder
          // sends it raw from its head anyway).
          if (k === 0 && chunk && !chunk.out) break;
        }
      } finally {
        await handle.close();
      }
    }
  }

  private async makeChunk(
    handle: FileHandle,
    size: number,
    k: number,
    count: number,
  ): Promise<AheadChunk | undefined> {
    const from = k * this.chunkBytes;
    const length = Math.min(this.chunkBytes, size - from);
    const isLast = k === count - 1;
    const buf = Buffer.alloc(length + (isLast ? padding(size) : 0)); // the padding is zeros
    const { bytesRead } = await handle.read(buf, 0, length, from);
    if (bytesRead !== length) return undefined; // the file shrank: the push will say so
    const quality = this.quality!; // the worker runs once started
    const out = await compress(buf, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: quality,
        [constants.BROTLI_PARAM_SIZE_HINT]: buf.length,
      },
    });
    const chunk = {
      sha256: createHash('sha256').update(buf).digest(),
      out: out.length > buf.length * KEEP_RATIO ? undefined : out,
      quality,
    };
    this.totals.chunks++;
    this.heldBytes += chunk.out?.length ?? 0;
    return chunk;
  }

  private release(chunk: AheadChunk | undefined): void {
    this.heldBytes -= chunk?.out?.length ?? 0;
    this.wake();
  }

  private async roomForMore(): Promise<void> {
    while (this.heldBytes >= this.budgetBytes && !this.isClosed) {
      await new Promise<void>((resolve) => (this.wakeWorker = resolve));
    }
  }

  private wake(): void {
    const wake = this.wakeWorker;
    this.wakeWorker = undefined;
    wake?.();
  }
}
