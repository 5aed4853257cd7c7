import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { MarkerScanner, STREAM_MARKER, createMarkerSkipper } from './marker';
import { randomBytes, randomChunks, seededRandom } from './tar/tar-test-helpers';

async function skip(chunks: Buffer[], onSkipped?: (b: Buffer) => void): Promise<Buffer> {
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(chunks),
    createMarkerSkipper({ onSkipped }),
    async (src: AsyncIterable<Buffer>) => {
      for await (const c of src) out.push(c);
    },
  );
  return Buffer.concat(out);
}

describe('createMarkerSkipper', () => {
  const noise = Buffer.from('Welcome to Ubuntu\nlast login: yesterday\nTENDER-STREAM/0\nTENDER-');
  const payload = Buffer.concat([
    Buffer.from([0, 255, 10, 13]),
    randomBytes(seededRandom(1), 5000),
    Buffer.from(STREAM_MARKER),
  ]);
  const whole = Buffer.concat([noise, Buffer.from(STREAM_MARKER), payload]);

  it('passes through exactly what follows the first marker, under any chunking', async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const skipped: Buffer[] = [];
      const out = await skip(randomChunks(whole, seededRandom(seed), seed < 10 ? 3 : 40), (b) =>
        skipped.push(b),
      );
      expect(out.equals(payload)).toBe(true);
      expect(Buffer.concat(skipped).equals(noise)).toBe(true);
    }
  });

  it('splits the marker one byte per chunk', async () => {
    const bytes = [...whole].map((b) => Buffer.from([b]));
    expect((await skip(bytes)).equals(payload)).toBe(true);
  });

  it('finds a marker printed right after text with no newline', async () => {
    const out = await skip([Buffer.from(`motd without newline${STREAM_MARKER}{"a":1}\n`)]);
    expect(out.toString()).toBe('{"a":1}\n');
  });

  it('fails when the stream ends before any marker', async () => {
    await expect(skip([Buffer.from('bash: node: command not found\n')])).rejects.toMatchObject({
      code: 'ERR_TENDER_NO_MARKER',
    });
  });

  it('gives an empty stream after a marker at the very end', async () => {
    expect((await skip([Buffer.from(`x${STREAM_MARKER}`)])).length).toBe(0);
  });
});

describe('MarkerScanner', () => {
  it('reports nothing before the marker and counts the noise', () => {
    const s = new MarkerScanner();
    expect(s.push(Buffer.from('abc TENDER-STR'))).toBeUndefined();
    expect(s.push(Buffer.from('EAM/1\nrest'))?.toString()).toBe('rest');
    expect(s.skippedBytes).toBe(4);
    expect(s.push(Buffer.from('TENDER-STREAM/1\n'))?.toString()).toBe('TENDER-STREAM/1\n');
  });
});
