// The precompressor on its own: chunks cut where the encoder cuts (the last one with the tar
// padding), each the brotli of exactly its bytes; what the encoder has passed is skipped;
// a file whose head does not shrink is given up; and no more than its budget is held.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { randomBytes, seededRandom } from '../../../src-agent/wire/tar/tar-test-helpers';
import { Precompressor } from './precompress';

const KB = 1024;
const CHUNK = 64 * KB;
const dir = mkdtempSync(join(tmpdir(), 'tender-precompress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function text(n: number, salt = ''): Buffer {
  const line = `step,loss,accuracy${salt}\n1200,0.41873,0.8812\n`;
  return Buffer.from(line.repeat(Math.ceil(n / line.length)).slice(0, n));
}

function file(name: string, bytes: Buffer): { path: string; size: number } {
  writeFileSync(join(dir, name), bytes);
  return { path: name, size: bytes.length };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest();

describe('Precompressor', () => {
  it('cuts a file into chunks of the segment size, the last with its tar padding', async () => {
    const bytes = text(2 * CHUNK + 700);
    const f = file('a.csv', bytes);
    const ahead = new Precompressor(dir, [f], CHUNK);
    ahead.start();
    const last = Buffer.concat([bytes.subarray(2 * CHUNK), Buffer.alloc(512 - 700 + 512)]);
    expect(last.length % 512).toBe(0);
    for (const [k, want] of [
      [0, bytes.subarray(0, CHUNK)],
      [1, bytes.subarray(CHUNK, 2 * CHUNK)],
      [2, last],
    ] as const) {
      // The worker may not have reached a chunk yet: wait for it as the encoder would find it.
      await until(() => ahead.totals.chunks > k);
      const chunk = await ahead.take('a.csv', k);
      expect(chunk?.sha256).toEqual(sha(want));
      expect(brotliDecompressSync(chunk!.out!)).toEqual(want);
    }
    expect(ahead.totals).toEqual({ chunks: 3, used: 3 });
    expect(await ahead.take('other.csv', 0)).toBeUndefined();
    ahead.close();
  });

  it('makes each chunk at the quality set when it is begun', async () => {
    const f = file('q.csv', text(3 * CHUNK, 'q'));
    const ahead = new Precompressor(dir, [f], CHUNK, 1); // one byte: one chunk at a time
    expect(ahead.quality).toBeUndefined();
    ahead.start(1);
    await until(() => ahead.totals.chunks === 1);
    ahead.quality = 5; // the link turned out slower
    expect((await ahead.take('q.csv', 0))?.quality).toBe(1);
    await until(() => ahead.totals.chunks === 2);
    expect((await ahead.take('q.csv', 1))?.quality).toBe(5);
    ahead.close();
  });

  it('skips what the encoder has passed, file by file', async () => {
    const a = file('b1.csv', text(4 * CHUNK, 'a'));
    const b = file('b2.csv', text(2 * CHUNK, 'b'));
    const ahead = new Precompressor(dir, [a, b], CHUNK);
    // The encoder is already past all of b1 and the first chunk of b2 when the worker starts.
    expect(await ahead.take('b2.csv', 0)).toBeUndefined();
    ahead.start();
    await until(() => ahead.totals.chunks >= 1);
    expect((await ahead.take('b2.csv', 1))?.sha256).toEqual(
      sha(text(2 * CHUNK, 'b').subarray(CHUNK)),
    );
    expect(ahead.totals).toEqual({ chunks: 1, used: 1 });
    ahead.close();
  });

  it('gives a file up when its first chunk does not shrink', async () => {
    const noiseBytes = randomBytes(seededRandom(7), 3 * CHUNK);
    const noise = file('noise.csv', noiseBytes);
    const after = file('after.csv', text(CHUNK, 'c'));
    const ahead = new Precompressor(dir, [noise, after], CHUNK);
    ahead.start();
    await until(() => ahead.totals.chunks >= 2);
    const first = await ahead.take('noise.csv', 0);
    expect(first?.out).toBeUndefined(); // sent as it is
    expect(first?.sha256).toEqual(sha(noiseBytes.subarray(0, CHUNK)));
    expect(await ahead.take('noise.csv', 1)).toBeUndefined();
    expect((await ahead.take('after.csv', 0))?.out).toBeDefined();
    expect(ahead.totals.chunks).toBe(2);
    ahead.close();
  });

  it('holds no more than its budget until the encoder takes some', async () => {
    const f = file('big.csv', text(8 * CHUNK, 'd'));
    const ahead = new Precompressor(dir, [f], CHUNK, 1); // one byte: one chunk at a time
    ahead.start();
    await until(() => ahead.totals.chunks >= 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(ahead.totals.chunks).toBe(1);
    expect(await ahead.take('big.csv', 0)).toBeDefined();
    await until(() => ahead.totals.chunks >= 2);
    expect(ahead.totals.chunks).toBe(2);
    ahead.close();
  });
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}
