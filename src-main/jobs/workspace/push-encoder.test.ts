// The app's encoder against the agent's decoder: every byte comes back, in order, whatever
// the chunking; bytes marked raw are never compressed, bytes that do not shrink are sent
// raw anyway, and text is compressed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
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
import { createTarWriter, type TarWriter } from '../../../src-agent/wire/tar';
import type { ByteKind } from './compress-policy';
import { AHEAD_QUALITY, Precompressor } from './precompress';
import { PushEncoder, SEGMENT_BYTES } from './push-encoder';

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

describe('PushEncoder with chunks compressed ahead', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tender-encoder-ahead-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const mtime = new Date(Date.UTC(2026, 0, 1));
  const noise = randomBytes(seededRandom(11), 3 * MB);
  const csv = text(3 * MB + 333);
  writeFileSync(join(dir, 'data.csv'), csv);

  /** A tar of a checkpoint, the CSV (its bytes `sent`, chunked as `data.csv`) and a small
   *  file, through an encoder with `ahead`; the plain tar beside it. */
  async function push(sent: Buffer, ahead: Precompressor) {
    const entries = (tar: TarWriter, encoder?: PushEncoder) => async () => {
      encoder?.mark(tar.offset, 'raw');
      await tar.addFile('ckpt.pt', { size: noise.length, mtime }, noise);
      encoder?.mark(tar.offset, 'try');
      const onData = (at: number) => encoder?.mark(at, 'try', 'data.csv');
      await tar.addFile('data.csv', { size: sent.length, mtime, onData }, sent);
      encoder?.mark(tar.offset, 'try');
      await tar.addFile('notes.txt', { size: 5 * KB, mtime }, text(5 * KB));
      await tar.finish();
    };
    const plainTar = createTarWriter();
    const [plain] = await Promise.all([collect(plainTar), entries(plainTar)()]);
    const tar = createTarWriter();
    const encoder = new PushEncoder(ahead);
    const [encoded] = await Promise.all([collect(tar.pipe(encoder)), entries(tar, encoder)()]);
    return { plain, encoded, encoder };
  }

  it('sends the chunks made ahead as they are, and the node gets the exact tar', async () => {
    const ahead = new Precompressor(dir, [{ path: 'data.csv', size: csv.length }], SEGMENT_BYTES);
    // The encoder starts it once a slow link is busy with raw bytes, which leaves it time
    // to finish; here it is given that time.
    ahead.start();
    await until(() => ahead.totals.chunks === 4);
    const { plain, encoded, encoder } = await push(csv, ahead);
    expect((await decode(encoded)).equals(plain)).toBe(true);
    expect(encoder.totals.tried).toMatchObject({ [`ahead ${AHEAD_QUALITY}`]: 4 });
    expect(ahead.totals.used).toBe(4);
    // The checkpoint (raw): its header and 3 MiB. The CSV: its header alone, then from its
    // first data byte 1 MiB, 1 MiB, 1 MiB, and the last 333 bytes with their padding.
    const segs = segmentsOf(encoded);
    expect(segs.map((s) => s.rawBytes).slice(0, 9)).toEqual([
      MB,
      MB,
      MB,
      512,
      512,
      MB,
      MB,
      MB,
      512,
    ]);
    expect(segs.map((s) => s.kind).slice(4, 9)).toEqual(Array(5).fill('brotli'));
  });

  it('compresses inline what changed after it was compressed ahead', async () => {
    const ahead = new Precompressor(dir, [{ path: 'data.csv', size: csv.length }], SEGMENT_BYTES);
    ahead.start();
    await until(() => ahead.totals.chunks === 4);
    const changed = Buffer.from(csv);
    changed.write('CHANGED', MB + 10); // the second chunk's bytes differ from the file's
    const { plain, encoded, encoder } = await push(changed, ahead);
    expect((await decode(encoded)).equals(plain)).toBe(true);
    expect(encoder.totals.tried[`ahead ${AHEAD_QUALITY}`]).toBe(3);
  });
});

describe('PushEncoder: when the chunks ahead start, and at what quality', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tender-encoder-start-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'data.csv'), text(3 * MB));
  const files = [{ path: 'data.csv', size: 3 * MB }];

  /** The precompressor's quality after the encoder took a small text file, then after a
   *  whole raw segment. */
  async function qualities(knownRate: number | undefined) {
    const ahead = new Precompressor(dir, files, SEGMENT_BYTES, undefined, knownRate);
    const encoder = new PushEncoder(ahead);
    encoder.resume(); // nothing reads it here
    const write = (b: Buffer) => new Promise<void>((done) => encoder.write(b, () => done()));
    encoder.mark(0, 'try');
    await write(text(10 * KB));
    const first = ahead.quality;
    encoder.mark(10 * KB, 'raw');
    await write(randomBytes(seededRandom(3), SEGMENT_BYTES));
    const afterRaw = ahead.quality;
    encoder.destroy();
    return [first, afterRaw];
  }

  // Once the link is busy with raw bytes; what earlier pushes to the endpoint measured
  // stands in for the push's own rate until that spans a quarter second.
  it.each([
    ['a link earlier pushes measured at 100 Mbit/s', 12e6, [undefined, 5]],
    ['a link earlier pushes measured at 1 Gbit/s', 100e6, [undefined, 1]],
    ['a link not measured yet', undefined, [undefined, undefined]],
    ['a link faster than any compression ahead', 400e6, [undefined, undefined]],
  ] as const)('%s', async (_name, knownRate, want) => {
    expect(await qualities(knownRate)).toEqual(want);
  });
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}
