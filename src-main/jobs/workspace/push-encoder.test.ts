// The app's encoder against the agent's decoder: every byte comes back, in order, whatever
// the chunking; bytes marked raw are never compressed, bytes that do not shrink are sent
// raw anyway, and text is compressed.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { createPushDecoder } from '../../../src-agent/commands/push-decoder';
import {
  decodeSegmentHead,
  ENCODED_MAGIC,
  SEGMENT_HEAD_BYTES,
  type SegmentKind,
} from '../../../src-agent/wire/push-encoding';
import {
  collect,
  randomBytes,
  randomChunks,
  seededRandom,
} from '../../../src-agent/wire/tar/tar-test-helpers';
import type { ByteKind } from './compress-policy';
import { PushEncoder } from './push-encoder';

const KB = 1024;
const MB = 1024 * KB;

function text(n: number): Buffer {
  const line = 'epoch,step,loss,accuracy\n3,1200,0.41873,0.8812\n';
  return Buffer.from(line.repeat(Math.ceil(n / line.length)).slice(0, n));
}

/** Encodes `parts` (each with its kind) fed as chunks of random sizes. */
async function encode(
  parts: { bytes: Buffer; kind: ByteKind }[],
  seed = 1,
): Promise<{ encoded: Buffer; input: Buffer; encoder: PushEncoder }> {
  const encoder = new PushEncoder();
  let at = 0;
  for (const p of parts) {
    encoder.mark(at, p.kind);
    at += p.bytes.length;
  }
  const input = Buffer.concat(parts.map((p) => p.bytes));
  const chunks = randomChunks(input, seededRandom(seed), 300 * KB);
  const out: Buffer[] = [];
  await pipeline(Readable.from(chunks), encoder, async (source: AsyncIterable<Buffer>) => {
    for await (const c of source) out.push(c);
  });
  return { encoded: Buffer.concat(out), input, encoder };
}

/** The segments of an encoded stream: kind and how many tar bytes each stands for. */
function segmentsOf(encoded: Buffer): { kind: SegmentKind; rawBytes: number }[] {
  expect(encoded.subarray(0, ENCODED_MAGIC.length)).toEqual(ENCODED_MAGIC);
  const out: { kind: SegmentKind; rawBytes: number }[] = [];
  for (let at = ENCODED_MAGIC.length; at < encoded.length;) {
    const head = decodeSegmentHead(encoded.subarray(at, at + SEGMENT_HEAD_BYTES));
    out.push({ kind: head.kind, rawBytes: head.rawBytes });
    at += SEGMENT_HEAD_BYTES + head.bytes;
  }
  return out;
}

const decode = (encoded: Buffer) =>
  collect(Readable.from(randomChunks(encoded, seededRandom(9), 70 * KB)).pipe(createPushDecoder()));

describe('PushEncoder', () => {
  it('round-trips text, noise and marked-raw bytes through the agent decoder', async () => {
    const rand = seededRandom(4);
    const { encoded, input, encoder } = await encode([
      { bytes: text(3 * MB + 123), kind: 'try' },
      { bytes: randomBytes(rand, 2 * MB + 7), kind: 'raw' },
      { bytes: text(5 * KB), kind: 'try' },
      { bytes: randomBytes(rand, 1500 * KB), kind: 'try' }, // tried, does not shrink
    ]);
    expect((await decode(encoded)).equals(input)).toBe(true);
    expect(encoder.totals).toMatchObject({ tarBytes: input.length, bytes: encoded.length });

    const segs = segmentsOf(encoded);
    expect(segs.at(-1)).toEqual({ kind: 'end', rawBytes: 0 });
    // Segments never straddle a change of kind: the first 3 MiB of text end one short.
    const kinds = segs.map((s) => s.kind);
    expect(kinds).toEqual([
      'brotli',
      'brotli',
      'brotli',
      'brotli', // 3 MiB + 123 bytes of text
      'raw',
      'raw',
      'raw', // the 2 MiB + 7 marked raw: never tried
      // 5 KiB of text and the noise after it, both worth trying: one segment with the
      // noise's first 1019 KiB, which did not shrink enough, so raw; then the rest
      'raw',
      'raw',
      'end',
    ]);
    expect(segs.map((s) => s.rawBytes).slice(0, 5)).toEqual([MB, MB, MB, 123, MB]);
    expect(encoded.length).toBeLessThan(input.length - 2.5 * MB);
  });

  it('encodes an empty stream as magic and end', async () => {
    const { encoded } = await encode([]);
    expect(segmentsOf(encoded)).toEqual([{ kind: 'end', rawBytes: 0 }]);
    expect(await decode(encoded)).toEqual(Buffer.alloc(0));
  });

  it.each([1, 2, 3])('gives the same bytes back for chunking seed %i', async (seed) => {
    const rand = seededRandom(seed);
    const parts = Array.from({ length: 40 }, (_, i) => ({
      bytes: i % 3 === 0 ? randomBytes(rand, Math.floor(rand() * 90 * KB)) : text(i * 7 * KB),
      kind: (i % 5 === 0 ? 'raw' : 'try') as ByteKind,
    }));
    const { encoded, input } = await encode(parts, seed);
    expect((await decode(encoded)).equals(input)).toBe(true);
  });
});
