// Compresses a push's tar stream into `sb1` (src-agent/wire/push-encoding.ts) on its way to
// the node. The tar is cut into segments of up to 1 MiB; a segment of bytes worth trying
// is brotli-compressed on the thread pool (two at once, so a second core helps), at the
// quality the link's pace asks for (compress-pace.ts), and kept only if it shrank below
// `KEEP_RATIO`; bytes the push marked `raw` (a compressed format, a file whose head did not
// shrink) go out as they are, uncopied. Segments leave in order. A large file the push
// hands to a `Precompressor` is cut into its chunks, and each chunk compressed ahead is
// used as it is (precompress.ts); the precompressor starts once the link is busy with raw
// bytes, at the densest quality one compression keeps ahead of the link with
// (`CompressPace.aheadQuality`: q5 on 100 Mbit/s, q1 on 1 Gbit/s), if any.
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';
import {
  ENCODED_MAGIC,
  encodeSegmentHead,
  MAX_SEGMENT_BYTES,
  segmentDigest,
} from '../../../src-agent/wire/push-encoding';
import { CompressPace, type Quality } from './compress-pace';
import { type ByteKind, KEEP_RATIO } from './compress-policy';
import type { AheadChunk, Precompressor } from './precompress';

const compress = promisify(brotliCompress);

/** Large enough that brotli loses nothing to the cut (measured: ratio 0.302 in 1 MiB
 *  segments, 0.302 whole, on CSV), small enough to keep two in flight cheaply. */
export const SEGMENT_BYTES = 1024 * 1024;
/** Compressions running at once; later segments wait for the oldest. */
const IN_FLIGHT = 2;

const END = encodeSegmentHead({ kind: 'end', rawBytes: 0, bytes: 0 });

interface Queued {
  out?: Buffer[];
  done: Promise<Buffer[]>;
}

interface Mark {
  at: number;
  kind: ByteKind;
  /** From here the bytes are the chunks of this file, compressed ahead. */
  chunksOf?: string;
}

export class PushEncoder extends Transform {
  private readonly marks: Mark[] = [];
  private kind: ByteKind = 'try';
  /** The file whose chunks the held bytes are, and the index of the chunk being held. */
  private chunksOf: string | undefined;
  private chunkIndex = 0;
  /** Tar bytes taken in so far. */
  private taken = 0;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private heldKind: ByteKind = 'try';
  private readonly queue: Queued[] = [];
  private isStarted = false;
  private readonly pace = new CompressPace(IN_FLIGHT);
  /** Tar bytes in, bytes out (magic and segment heads included), and the segments worth
   *  trying by the quality they were sent at (`raw`: as they were). */
  readonly totals = { tarBytes: 0, bytes: 0, tried: {} as Record<string, number> };

  constructor(private readonly ahead?: Precompressor) {
    super({ readableHighWaterMark: SEGMENT_BYTES });
  }

  /** The tar bytes from offset `at` on are `kind` (until the next mark); with `chunksOf`,
   *  they are that file's data (and padding), which the precompressor compresses ahead in
   *  segment-sized chunks: a segment ends where they begin and where they end. Marks come
   *  in offset order, none behind what the encoder has taken in. */
  mark(at: number, kind: ByteKind, chunksOf?: string): void {
    this.marks.push({ at, kind, chunksOf });
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.ahead?.close();
    callback(err);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.takeIn(chunk).then(
      () => done(),
      (err: Error) => done(err),
    );
  }

  override _flush(done: TransformCallback): void {
    (async () => {
      this.start();
      await this.cut();
      while (this.queue.length > 0) this.send(await this.queue.shift()!.done);
      this.send([END]);
    })().then(
      () => done(),
      (err: Error) => done(err),
    );
  }

  private async takeIn(chunk: Buffer): Promise<void> {
    this.start();
    this.totals.tarBytes += chunk.length;
    let from = 0;
    while (from < chunk.length) {
      while (this.marks.length > 0 && this.marks[0]!.at <= this.taken) {
        const mark = this.marks.shift()!;
        if (mark.chunksOf !== undefined || this.chunksOf !== undefined) await this.cut();
        this.kind = mark.kind;
        this.chunksOf = mark.chunksOf;
        this.chunkIndex = 0;
      }
      const next = this.marks[0]?.at ?? Infinity;
      const to = Math.min(chunk.length, from + (next - this.taken));
      await this.hold(chunk.subarray(from, to), this.kind);
      this.taken += to - from;
      from = to;
    }
  }

  private start(): void {
    if (this.isStarted) return;
    this.isStarted = true;
    this.send([ENCODED_MAGIC]);
  }

  /** Starts the chunks ahead at `quality`, or moves them to it once started where it is
   *  faster (a fast link's first reading is low; none: the fastest). Never denser: while
   *  chunks are made, the raw bytes' pace is also what they leave of this machine's CPU,
   *  and a denser quality would slow it further. */
  private startAhead(quality: 1 | 4 | 5 | null): void {
    const ahead = this.ahead;
    if (!ahead) return;
    if (ahead.quality === undefined) {
      if (quality !== null) ahead.start(quality);
    } else ahead.quality = Math.min(ahead.quality, quality ?? 1) as 1 | 4 | 5;
  }

  private async hold(piece: Buffer, kind: ByteKind): Promise<void> {
    if (kind !== this.heldKind) {
      await this.cut();
      this.heldKind = kind;
    }
    while (piece.length > 0) {
      const part = piece.subarray(0, SEGMENT_BYTES - this.heldBytes);
      this.held.push(part);
      this.heldBytes += part.length;
      piece = piece.subarray(part.length);
      if (this.heldBytes === SEGMENT_BYTES) await this.cut();
    }
  }

  /** Makes a segment of what is held; waits while too many are in flight. */
  private async cut(): Promise<void> {
    if (this.heldBytes === 0) return;
    const parts = this.held;
    const n = this.heldBytes;
    this.held = [];
    this.heldBytes = 0;
    let entry: Queued;
    if (this.heldKind === 'raw') {
      const out = rawSegment(parts, n);
      entry = { out, done: Promise.resolve(out) };
      if (this.ahead && n === SEGMENT_BYTES) {
        this.startAhead(this.pace.aheadQuality(this.observation(), this.ahead.knownRate));
      }
    } else {
      const chunk = this.chunksOf === undefined ? undefined : this.chunkIndex++;
      const done =
        chunk === undefined || !this.ahead
          ? this.trySegment(parts, n)
          : this.ahead
              .take(this.chunksOf!, chunk)
              .then((ahead) => (ahead ? this.aheadSegment(parts, n, ahead) : undefined))
              .then((seg) => seg ?? this.trySegment(parts, n));
      entry = { done };
      done.then(
        (out) => (entry.out = out),
        () => {
          /* thrown where it is awaited; a destroyed stream never awaits it */
        },
      );
    }
    this.queue.push(entry);
    while (this.queue[0]?.out) this.send(this.queue.shift()!.out!);
    while (this.queue.length > IN_FLIGHT) this.send(await this.queue.shift()!.done);
  }

  /** Compresses a segment at the quality the pace asks for now. */
  private trySegment(parts: Buffer[], n: number): Promise<Buffer[]> {
    const quality = this.nextQuality();
    this.count(String(quality ?? 'raw'));
    return trySegment(parts, n, quality, this.pace);
  }

  /** The segment for a chunk compressed ahead, if it is of exactly these bytes. */
  private aheadSegment(parts: Buffer[], n: number, ahead: AheadChunk): Buffer[] | undefined {
    const raw = parts.length === 1 ? parts[0]! : Buffer.concat(parts, n);
    const sha256 = createHash('sha256');
    sha256.update(raw);
    if (!sha256.digest().equals(ahead.sha256)) return undefined; // changed since
    this.count(`ahead ${ahead.quality}`);
    if (!ahead.out) return rawSegment([raw], n);
    const head = encodeSegmentHead({
      kind: 'brotli',
      rawBytes: n,
      bytes: ahead.out.length,
      digest: ahead.sha256.subarray(0, 8),
    });
    return [head, ahead.out];
  }

  private count(key: string): void {
    this.totals.tried[key] = (this.totals.tried[key] ?? 0) + 1;
  }

  /** Asks the pace, with what the link did since it was asked last. */
  private nextQuality(): Quality {
    return this.pace.next(this.observation());
  }

  private observation() {
    return {
      atMs: performance.now(),
      sentBytes: this.totals.bytes,
      drainedBytes: this.totals.bytes - this.readableLength,
    };
  }

  private send(bufs: Buffer[]): void {
    for (const b of bufs) {
      this.totals.bytes += b.length;
      this.push(b);
    }
  }
}

function rawSegment(parts: Buffer[], n: number): Buffer[] {
  if (n > MAX_SEGMENT_BYTES) throw new Error(`a segment of ${n} bytes`); // SEGMENT_BYTES bounds it
  return [encodeSegmentHead({ kind: 'raw', rawBytes: n, bytes: n }), ...parts];
}

/** The parts compressed at `quality`, if that shrinks them below `KEEP_RATIO`; else (or
 *  with no quality) as they are. */
async function trySegment(
  parts: Buffer[],
  n: number,
  quality: Quality,
  pace: CompressPace,
): Promise<Buffer[]> {
  if (quality === null) return rawSegment(parts, n);
  const raw = parts.length === 1 ? parts[0]! : Buffer.concat(parts, n);
  const from = performance.now();
  const out = await compress(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_SIZE_HINT]: n,
    },
  });
  pace.compressed(quality, n, out.length, performance.now() - from);
  if (out.length > n * KEEP_RATIO) return rawSegment([raw], n);
  const head = encodeSegmentHead({
    kind: 'brotli',
    rawBytes: n,
    bytes: out.length,
    digest: segmentDigest(raw),
  });
  return [head, out];
}
