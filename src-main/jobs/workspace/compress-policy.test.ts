import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  estimateSaving,
  fileKind,
  isAlreadyCompressed,
  isWorthCompressing,
  MIN_SAVED_BYTES,
  SAMPLE_BYTES,
  samplePicks,
  sampleRatio,
} from './compress-policy';

/** A seeded generator of numbers in [0, 1) (xorshift32). */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

/** Seeded CSV-like text: compresses about 4×. */
function csv(bytes: number, seed = 1): Buffer {
  const next = rng(seed);
  const labels = ['cat', 'dog', 'bird', 'ship', 'truck'];
  let text = 'id,label,score\n';
  for (let i = 0; text.length < bytes; i++) {
    text += `${i},${labels[Math.floor(next() * labels.length)]},${next().toFixed(4)}\n`;
  }
  return Buffer.from(text.slice(0, bytes));
}

const text = csv(SAMPLE_BYTES);
const noise = randomBytes(SAMPLE_BYTES);
// Float32 weights, as a checkpoint holds them: random mantissas, shrinks by a few percent.
const nextWeight = rng(3);
const weights = Buffer.from(
  new Float32Array(SAMPLE_BYTES / 4).map(() => (nextWeight() - 0.5) * 0.02).buffer,
);

describe('fileKind', () => {
  it.each([
    // path, sample, kind: a compressed format is never tried, whatever its bytes
    ['data/images.zip', text, 'raw'],
    ['photo.JPG', undefined, 'raw'],
    ['clip.mp4', undefined, 'raw'],
    ['archive.tar.gz', undefined, 'raw'],
    ['pkg.whl', undefined, 'raw'],
    // weights and other binaries: the sample decides, not the extension
    ['model.pt', noise, 'raw'],
    ['model.safetensors', weights, 'raw'],
    ['model.pt', text, 'try'],
    ['ckpt.bin', csv(SAMPLE_BYTES, 7), 'try'],
    // text, sampled or not
    ['train.csv', text, 'try'],
    ['train.py', undefined, 'try'],
    // a small sample says too little: tried along with its neighbours
    ['tiny.bin', noise.subarray(0, 100), 'try'],
    // no extension, or a dot file
    ['Makefile', undefined, 'try'],
    ['.zip', undefined, 'try'],
  ] as const)('%s → %s', (path, sample, kind) => {
    expect(fileKind(path, sample)).toBe(kind);
  });
});

describe('isAlreadyCompressed', () => {
  it.each([
    ['a/b/c.zst', true],
    ['a.zip/readme.md', false],
    ['noext', false],
    ['x.XZ', true],
  ] as const)('%s → %s', (path, is) => expect(isAlreadyCompressed(path)).toBe(is));
});

describe('sampleRatio', () => {
  it('is about 0.25 for CSV text, about 1 for noise, 1 for nothing', () => {
    expect(sampleRatio(text)).toBeLessThan(0.4);
    expect(sampleRatio(noise)).toBeGreaterThan(0.99);
    expect(sampleRatio(Buffer.alloc(0))).toBe(1);
  });
});

describe('samplePicks', () => {
  it.each([
    // sizes, largest, spread, picks
    [[], 16, 32, []],
    [[5, 1, 9], 2, 32, [2, 0, 1]],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 2, 4, [9, 8, 0, 2, 4, 6]],
    [[7, 7, 7], 1, 1, [0, 1]],
  ] as const)('%j (largest %i, spread %i) → %j', (sizes, largest, spread, picks) => {
    expect(samplePicks(sizes, largest, spread)).toEqual(picks);
  });
});

describe('estimateSaving and isWorthCompressing', () => {
  const MB = 1024 * 1024;
  it.each([
    // name, sizes, ratios by index (picks), largest, saved bytes, worth it, tried bytes
    ['one text file', [10 * MB], [[0, 0.25]], 16, 7.5 * MB, true, 10 * MB],
    ['one noise file', [10 * MB], [[0, 1]], 16, 0, false, 0],
    // ratios above KEEP_RATIO save nothing: those segments go raw
    ['barely compressible', [10 * MB], [[0, 0.95]], 16, 0, false, 0],
    // text beside noise: the text's saving stands, a fifth of the push
    [
      'text and a checkpoint',
      [4 * MB, 16 * MB],
      [
        [0, 0.25],
        [1, 1],
      ],
      16,
      3 * MB,
      true,
      4 * MB,
    ],
    [
      'a little text beside much noise',
      [MB, 100 * MB],
      [
        [0, 0.25],
        [1, 1],
      ],
      16,
      0.75 * MB,
      false,
      MB,
    ],
    // the spread stands for every file outside the largest, by size
    [
      'spread',
      [8 * MB, MB, MB, MB, MB],
      [
        [0, 1],
        [1, 0.5],
        [3, 0.5],
      ],
      1,
      2 * MB,
      true,
      4 * MB,
    ],
    ['too small to bother', [100_000], [[0, 0.25]], 16, 75_000, true, 100_000],
    ['smaller still', [40_000], [[0, 0.25]], 16, 30_000, false, 40_000],
  ] as const)('%s', (_name, sizes, ratios, largest, saved, isWorth, tried) => {
    const e = estimateSaving(sizes, new Map(ratios.map(([i, r]) => [i, r])), largest);
    expect(e.savedBytes).toBe(Math.round(saved));
    expect(e.triedBytes).toBe(Math.round(tried));
    expect(isWorthCompressing(e)).toBe(isWorth);
  });

  it('asks for a saving of at least MIN_SAVED_BYTES', () => {
    expect(isWorthCompressing({ totalBytes: 0, savedBytes: 0, triedBytes: 0 })).toBe(false);
    expect(
      isWorthCompressing({
        totalBytes: MIN_SAVED_BYTES,
        savedBytes: MIN_SAVED_BYTES,
        triedBytes: MIN_SAVED_BYTES,
      }),
    ).toBe(true);
  });
});
