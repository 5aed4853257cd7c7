// Length-prefixed frames, the framing of `serve-workspace` (docs/agent-protocol.md): a
// 4-byte big-endian length, then that many bytes. Imported by the app as well, so this file
// depends on nothing but Buffer.

/** Larger frames are refused: a length this big means the stream is out of step. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** The length prefix of every frame. */
export const FRAME_HEAD_BYTES = 4;

/** The frame holding `payload` (an empty one is the end-of-request frame). A payload of up
 *  to 64 KiB comes back in one buffer with its head (one write, so one SSH packet where
 *  two would go), a larger one as head and payload, uncopied. */
export function frame(payload: Buffer): Buffer[] {
  const head = Buffer.allocUnsafe(FRAME_HEAD_BYTES);
  head.writeUInt32BE(payload.length, 0);
  if (payload.length === 0) return [head];
  return payload.length <= 64 * 1024 ? [Buffer.concat([head, payload])] : [head, payload];
}

/** Reads frames from a byte stream: `next()` gives each payload, or null at a clean end. */
export class FrameReader {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private readonly source: AsyncIterator<Buffer>;

  constructor(input: AsyncIterable<Buffer>) {
    this.source = input[Symbol.asyncIterator]();
  }

  async next(): Promise<Buffer | null> {
    const head = await this.take(4);
    if (head === null) return null;
    const length = head.readUInt32BE(0);
    if (length > MAX_FRAME_BYTES) throw new Error(`a frame of ${length} bytes: out of step`);
    if (length === 0) return Buffer.alloc(0);
    const body = await this.take(length);
    if (body === null) throw new Error('the stream ended inside a frame');
    return body;
  }

  /** Exactly `n` bytes, or null when the stream ends before the first of them. */
  private async take(n: number): Promise<Buffer | null> {
    while (this.buffered < n) {
      const { value, done } = await this.source.next();
      if (done) {
        if (this.buffered === 0) return null;
        throw new Error('the stream ended inside a frame');
      }
      this.chunks.push(value);
      this.buffered += value.length;
    }
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    this.chunks.length = 0;
    this.buffered = all.length - n;
    if (this.buffered > 0) this.chunks.push(all.subarray(n));
    return out;
  }
}
