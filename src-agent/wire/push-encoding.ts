// The compressed form of a push's tar stream, `sb1` (segmented brotli, docs/agent-protocol.md):
// a magic, then segments, each a 17-byte head and its bytes, then an end segment. A segment
// holds up to 4 MiB of the tar, either as they are (`raw`) or compressed on its own with
// brotli (`brotli`), with the first 8 bytes of the sha256 of what it decodes to: brotli
// has no checksum of its own, and a decoder must not hand on bytes it cannot vouch for.
// The app encodes (src-main/jobs/workspace/push-encoder.ts), the agent decodes
// (src-agent/commands/push-decoder.ts); both import this file: node:crypto only.
import { createHash } from 'node:crypto';

/** The one encoding there is; what `TENDER_PUSH_ENCODING` and a session's `encoding` name. */
export const PUSH_ENCODING = 'sb1';
export type PushEncodingName = typeof PUSH_ENCODING;

/** The environment variable that tells `recv-workspace` its stdin is encoded. */
export const PUSH_ENCODING_ENV = 'TENDER_PUSH_ENCODING';

/** An encoded stream's first bytes. A tar's first byte is its first entry's path, never NUL,
 *  so an older agent handed this stream refuses it as "not a tar archive" and writes
 *  nothing. */
export const ENCODED_MAGIC = Buffer.from([0x00, 0x54, 0x5a, 0x31]); // "\0TZ1"

export const SEGMENT_HEAD_BYTES = 17;

/** Larger segments are refused: a length this big means the stream is damaged. */
export const MAX_SEGMENT_BYTES = 4 * 1024 * 1024;

export type SegmentKind = 'raw' | 'brotli' | 'end';
const KIND_BYTE: Record<SegmentKind, number> = { raw: 0, brotli: 1, end: 2 };
const KIND_OF: readonly SegmentKind[] = ['raw', 'brotli', 'end'];

export interface SegmentHead {
  kind: SegmentKind;
  /** Bytes of tar the segment stands for. */
  rawBytes: number;
  /** Bytes of the segment that follow its head (`rawBytes` for a raw one). */
  bytes: number;
  /** `segmentDigest` of the decoded bytes (a brotli segment), zeros otherwise. */
  digest: Buffer;
}

const NO_DIGEST = Buffer.alloc(8);

export function encodeSegmentHead(h: Omit<SegmentHead, 'digest'> & { digest?: Buffer }): Buffer {
  const b = Buffer.allocUnsafe(SEGMENT_HEAD_BYTES);
  b.writeUInt8(KIND_BYTE[h.kind], 0);
  b.writeUInt32BE(h.rawBytes, 1);
  b.writeUInt32BE(h.bytes, 5);
  (h.digest ?? NO_DIGEST).copy(b, 9, 0, 8);
  return b;
}

/** The head in `b` (17 bytes), checked for shape; throws a plain Error naming what is wrong. */
export function decodeSegmentHead(b: Buffer): SegmentHead {
  const kind = KIND_OF[b.readUInt8(0)];
  if (kind === undefined) throw new Error(`unknown segment kind ${b.readUInt8(0)}`);
  const rawBytes = b.readUInt32BE(1);
  const bytes = b.readUInt32BE(5);
  const head = { kind, rawBytes, bytes, digest: Buffer.from(b.subarray(9, 17)) };
  if (rawBytes > MAX_SEGMENT_BYTES || bytes > MAX_SEGMENT_BYTES) {
    throw new Error(
      `a segment of ${Math.max(rawBytes, bytes)} bytes (at most ${MAX_SEGMENT_BYTES})`,
    );
  }
  if (kind === 'raw' && bytes !== rawBytes) {
    throw new Error(`a raw segment of ${bytes} bytes that stands for ${rawBytes}`);
  }
  if (kind === 'brotli' && (bytes === 0 || rawBytes === 0)) {
    throw new Error('an empty compressed segment');
  }
  if (kind === 'end' && (bytes !== 0 || rawBytes !== 0))
    throw new Error('an end segment with bytes');
  return head;
}

/** The first 8 bytes of the sha256 of `raw`. */
export function segmentDigest(raw: Buffer): Buffer {
  return createHash('sha256').update(raw).digest().subarray(0, 8);
}
