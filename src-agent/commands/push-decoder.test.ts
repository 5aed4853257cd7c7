// A damaged compressed push fails with `bad_encoding`, and hands on nothing of the segment
// that is damaged (what came before it, the receiver then drops with the rest).
import { Readable } from 'node:stream';
import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  ENCODED_MAGIC,
  encodeSegmentHead,
  MAX_SEGMENT_BYTES,
  segmentDigest,
} from '../wire/push-encoding';
import { createPushDecoder, unknownEncoding } from './push-decoder';

const raw = (b: Buffer) => [
  encodeSegmentHead({ kind: 'raw', rawBytes: b.length, bytes: b.length }),
  b,
];
const brotli = (b: Buffer, over: { digest?: Buffer; rawBytes?: number; body?: Buffer } = {}) => {
  const body = over.body ?? brotliCompressSync(b);
  const head = encodeSegmentHead({
    kind: 'brotli',
    rawBytes: over.rawBytes ?? b.length,
    bytes: body.length,
    digest: over.digest ?? segmentDigest(b),
  });
  return [head, body];
};
const END = encodeSegmentHead({ kind: 'end', rawBytes: 0, bytes: 0 });

const first = Buffer.from('first segment, as sent\n');
const second = Buffer.from(
  Array.from({ length: 300 }, (_, i) => `line ${(i * 7919) % 1000} of the second segment\n`).join(
    '',
  ),
);

/** Decodes `parts` fed one byte at a time (every boundary lands mid-field somewhere);
 *  resolves with what came out and the error it ended with, if any. */
async function decode(
  parts: Buffer[],
): Promise<{ out: Buffer; error?: Error & { code?: string } }> {
  const all = Buffer.concat(parts);
  const bytes = Array.from({ length: all.length }, (_, i) => all.subarray(i, i + 1));
  const out: Buffer[] = [];
  try {
    for await (const c of Readable.from(bytes).pipe(createPushDecoder())) out.push(c as Buffer);
  } catch (err) {
    return { out: Buffer.concat(out), error: err as Error };
  }
  return { out: Buffer.concat(out) };
}

describe('push decoder', () => {
  it('gives back raw and compressed segments in order', async () => {
    const r = await decode([ENCODED_MAGIC, ...raw(first), ...brotli(second), END]);
    expect(r.error).toBeUndefined();
    expect(r.out.toString()).toBe(first.toString() + second.toString());
  });

  it.each([
    {
      name: 'a stream that is not encoded (a plain tar)',
      parts: [Buffer.from('w/'), Buffer.alloc(510)],
      message: /does not begin as an sb1 stream/,
    },
    {
      name: 'compressed bytes that do not decode',
      parts: [
        ENCODED_MAGIC,
        ...raw(first),
        ...brotli(second, { body: Buffer.from('not brotli at all') }),
        END,
      ],
      message: /segment 2\): its compressed bytes do not decode/,
    },
    {
      name: 'compressed bytes cut short',
      parts: [
        ENCODED_MAGIC,
        ...raw(first),
        ...brotli(second, { body: brotliCompressSync(second).subarray(0, 20) }),
        END,
      ],
      message: /do not decode/,
    },
    {
      name: 'a segment that decodes to more than announced',
      parts: [
        ENCODED_MAGIC,
        ...raw(first),
        ...brotli(second, { rawBytes: second.length - 1 }),
        END,
      ],
      message: /do not decode/,
    },
    {
      name: 'a segment that decodes to less than announced',
      parts: [
        ENCODED_MAGIC,
        ...raw(first),
        ...brotli(second, { rawBytes: second.length + 1 }),
        END,
      ],
      message: new RegExp(
        `decodes to ${second.length} bytes, not the ${second.length + 1} announced`,
      ),
    },
    {
      name: 'a segment that decodes to other bytes than were sent',
      parts: [
        ENCODED_MAGIC,
        ...raw(first),
        ...brotli(second, { digest: segmentDigest(first) }),
        END,
      ],
      message: /digest mismatch/,
    },
    {
      name: 'an unknown segment kind',
      parts: [ENCODED_MAGIC, ...raw(first), Buffer.from([7, ...Buffer.alloc(16)])],
      message: /unknown segment kind 7/,
    },
    {
      name: 'a segment too large',
      parts: [
        ENCODED_MAGIC,
        ...raw(first),
        encodeSegmentHead({
          kind: 'raw',
          rawBytes: MAX_SEGMENT_BYTES + 1,
          bytes: MAX_SEGMENT_BYTES + 1,
        }),
      ],
      message: /at most 4194304/,
    },
    {
      name: 'a stream without its end segment',
      parts: [ENCODED_MAGIC, ...raw(first), ...brotli(second)],
      message: /ended before its end segment/,
    },
    {
      name: 'bytes after the end segment',
      parts: [ENCODED_MAGIC, ...raw(first), ...brotli(second), END, Buffer.from('x')],
      message: /follow its end segment/,
    },
  ])('refuses $name', async ({ parts, message }) => {
    const r = await decode(parts);
    expect(r.error?.code).toBe('bad_encoding');
    expect(r.error?.message).toMatch(message);
    expect(r.error?.message).toMatch(/nothing was applied, push again$/);
    // Nothing of a damaged compressed segment is handed on.
    expect(r.out.toString()).not.toContain('second segment');
  });
});

describe('unknownEncoding', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['sb1', null],
    ['zstd', /decodes pushes encoded as sb1, not "zstd"/],
  ] as const)('%s', (name, expected) => {
    const why = unknownEncoding(name);
    if (expected === null) expect(why).toBeNull();
    else expect(why).toMatch(expected);
  });
});
