// Decodes an `sb1` push (src-agent/wire/push-encoding.ts) back into its tar stream, for
// `recv-workspace` and `serve-workspace` when the app compressed it. A damaged stream fails
// with `bad_encoding` before any byte of the damaged segment is handed on: a brotli segment
// must decode to exactly its announced length and digest, and the stream must end with its
// end segment. Whoever reads the tar then fails too, and the push applies nothing.
import { Transform, type TransformCallback } from 'node:stream';
import { promisify } from 'node:util';
import { brotliDecompress } from 'node:zlib';
import {
  decodeSegmentHead,
  ENCODED_MAGIC,
  PUSH_ENCODING,
  SEGMENT_HEAD_BYTES,
  type SegmentHead,
  segmentDigest,
} from '../wire/push-encoding';
import { coded } from './workspace-receiver';

const decompress = promisify(brotliDecompress);

/** Null when `encoding` (what the app named) is one this agent decodes, or none; else why
 *  not: `recv-workspace` answers that (`bad_encoding`) without reading its input. */
export function unknownEncoding(encoding: string | undefined): string | null {
  if (encoding === undefined || encoding === '' || encoding === PUSH_ENCODING) return null;
  return `this agent decodes pushes encoded as ${PUSH_ENCODING}, not ${JSON.stringify(encoding)}; push with the Tender that started the node`;
}

export function createPushDecoder(): Transform {
  return new PushDecoder();
}

class PushDecoder extends Transform {
  /** Input bytes taken so far (for messages). */
  private at = 0;
  private segments = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private segment: SegmentHead | undefined;
  /** Bytes of the current segment still to come. */
  private left = 0;
  private stage: 'magic' | 'head' | 'body' | 'ended' = 'magic';

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.consume(chunk).then(
      () => done(),
      (err: Error) => done(err),
    );
  }

  override _flush(done: TransformCallback): void {
    if (this.stage === 'ended') return done();
    done(this.damaged('it ended before its end segment (truncated)'));
  }

  private async consume(chunk: Buffer): Promise<void> {
    let from = 0;
    while (from < chunk.length) {
      if (this.stage === 'ended') {
        throw this.damaged(`${chunk.length - from} bytes follow its end segment`);
      }
      if (this.stage === 'body' && this.segment!.kind === 'raw') {
        // Raw bytes go on as they come: nothing to hold them back for.
        const n = Math.min(this.left, chunk.length - from);
        this.push(chunk.subarray(from, from + n));
        from += n;
        this.at += n;
        this.left -= n;
        if (this.left === 0) this.endSegment();
        continue;
      }
      const want =
        this.stage === 'magic'
          ? ENCODED_MAGIC.length
          : this.stage === 'head'
            ? SEGMENT_HEAD_BYTES
            : this.left;
      const n = Math.min(want - this.pendingBytes, chunk.length - from);
      this.pending.push(chunk.subarray(from, from + n));
      this.pendingBytes += n;
      from += n;
      if (this.pendingBytes < want) break;
      const whole = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
      if (this.stage === 'magic') this.checkMagic(whole);
      else if (this.stage === 'head') this.startSegment(whole);
      else await this.decodeBrotli(whole);
      this.at += want;
    }
  }

  private checkMagic(b: Buffer): void {
    if (!b.equals(ENCODED_MAGIC)) {
      throw this.damaged(`it does not begin as an ${PUSH_ENCODING} stream does`);
    }
    this.stage = 'head';
  }

  private startSegment(b: Buffer): void {
    try {
      this.segment = decodeSegmentHead(b);
    } catch (err) {
      throw this.damaged((err as Error).message);
    }
    this.left = this.segment.bytes;
    if (this.segment.kind === 'end') this.stage = 'ended';
    else if (this.left === 0) this.endSegment();
    else this.stage = 'body';
  }

  private async decodeBrotli(body: Buffer): Promise<void> {
    const seg = this.segment!;
    let raw: Buffer;
    try {
      raw = await decompress(body, { maxOutputLength: seg.rawBytes });
    } catch (err) {
      throw this.damaged(`its compressed bytes do not decode (${(err as Error).message})`);
    }
    if (raw.length !== seg.rawBytes) {
      throw this.damaged(`it decodes to ${raw.length} bytes, not the ${seg.rawBytes} announced`);
    }
    if (!segmentDigest(raw).equals(seg.digest)) {
      throw this.damaged('it decodes to bytes other than the app sent (digest mismatch)');
    }
    this.push(raw);
    this.endSegment();
  }

  private endSegment(): void {
    this.segments++;
    this.segment = undefined;
    this.stage = 'head';
  }

  private damaged(why: string): Error {
    return coded(
      'bad_encoding',
      `the compressed push is damaged at byte ${this.at} (segment ${this.segments + 1}): ${why}; nothing was applied, push again`,
    );
  }
}
