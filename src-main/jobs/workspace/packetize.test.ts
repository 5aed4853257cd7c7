import { describe, expect, test } from 'vitest';
import { packetized } from './packetize';

/** Chunks of the given lengths, numbered bytes throughout so any reordering shows. */
function chunksOf(lengths: number[]): Buffer[] {
  let n = 0;
  return lengths.map((len) => {
    const b = Buffer.alloc(len);
    for (let i = 0; i < len; i++) b[i] = n++ % 251;
    return b;
  });
}

async function regroup(lengths: number[], size: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const c of packetized(
    (async function* () {
      yield* chunksOf(lengths);
    })(),
    size,
  ))
    out.push(c);
  return out;
}

describe('packetized', () => {
  test.each([
    { name: 'nothing', lengths: [], out: [] },
    { name: 'empty chunks only', lengths: [0, 0], out: [] },
    { name: 'one short chunk is held to the end', lengths: [5], out: [5] },
    { name: 'small chunks join into whole packets', lengths: [3, 3, 3, 3], out: [8, 4] },
    { name: 'an exact packet', lengths: [4, 4], out: [8] },
    { name: 'a large chunk goes out as whole packets', lengths: [20], out: [16, 4] },
    { name: 'held bytes fill a packet from the next chunk', lengths: [5, 20], out: [8, 16, 1] },
    { name: 'the tail of one chunk heads the next', lengths: [5, 6, 0, 7, 2], out: [8, 8, 4] },
    { name: 'a chunk that just completes a packet', lengths: [6, 2, 8], out: [8, 8] },
  ])('$name', async ({ lengths, out }) => {
    const got = await regroup(lengths, 8);
    expect(got.map((c) => c.length)).toEqual(out);
    expect(Buffer.concat(got).equals(Buffer.concat(chunksOf(lengths)))).toBe(true);
  });

  test('every chunk but the last is a multiple of the packet size, for mixed tar-like sizes', async () => {
    // Headers, contents and paddings of a few hundred small files, a large file in 1 MiB
    // reads, then the end-of-archive blocks.
    const lengths: number[] = [];
    for (let i = 0; i < 300; i++) lengths.push(512, 1000 + i * 37, 512 - ((1000 + i * 37) % 512));
    lengths.push(512, 1 << 20, 1 << 20, 12_345, 1024);
    const got = await regroup(lengths, 32 * 1024);
    for (const c of got.slice(0, -1)) expect(c.length % (32 * 1024)).toBe(0);
    expect(Buffer.concat(got).equals(Buffer.concat(chunksOf(lengths)))).toBe(true);
  });

  test('large chunks pass as slices of their own memory, not copies', async () => {
    const big = Buffer.alloc(64);
    const out: Buffer[] = [];
    for await (const c of packetized(
      (async function* () {
        yield big;
      })(),
      8,
    ))
      out.push(c);
    expect(out).toHaveLength(1);
    expect(out[0]!.buffer).toBe(big.buffer);
  });

  test('an error from the source reaches the reader', async () => {
    const failing = (async function* () {
      yield Buffer.alloc(3);
      throw new Error('disk gone');
    })();
    await expect(async () => {
      for await (const _ of packetized(failing, 8));
    }).rejects.toThrow('disk gone');
  });
});
