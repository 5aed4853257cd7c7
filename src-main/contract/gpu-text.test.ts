import { describe, expect, it } from 'vitest';
import { gpuLines, gpuText } from './gpu-text';
import type { NodeGpu } from './node-view';

function gpu(...gpus: [number | null, number | null, number | null][]): NodeGpu {
  return {
    at: 0,
    gpus: gpus.map(([util, memUsedMiB, memTotalMiB], index) => ({
      index,
      util,
      memUsedMiB,
      memTotalMiB,
    })),
    history: [],
    stale: false,
    stalled: false,
    lastLineAt: null,
  };
}

describe('gpuText', () => {
  it.each([
    ['one A100 80GB at 87%', gpu([87, 31_245, 81_920]), 'GPU 87% · 31/80 GB'],
    ['an H100 at 100%', gpu([100, 71_203, 81_559]), 'GPU 100% · 70/80 GB'],
    ['a small memory use', gpu([3, 1_571, 24_564]), 'GPU 3% · 1.5/24 GB'],
    ['nothing on it', gpu([0, 0, 24_576]), 'GPU 0% · 0/24 GB'],
    [
      'two GPUs: the mean and the sum',
      gpu([3, 1_571, 24_564], [0, 18, 24_576]),
      '2× GPU 2% · 1.6/48 GB',
    ],
    [
      'a MIG GPU counts only where it reads',
      gpu([58, 23_100, 81_920], [null, 24_205, 81_920]),
      '2× GPU 58% · 46/160 GB',
    ],
    ['no utilisation at all', gpu([null, 512, 2_048]), 'GPU n/a · 0.5/2.0 GB'],
    ['no memory reading', gpu([0, null, null]), 'GPU 0%'],
  ])('%s: %s', (_name, g, text) => {
    expect(gpuText(g)).toBe(text);
  });

  it('lists each GPU for a tooltip', () => {
    expect(gpuLines(gpu([58, 23_100, 81_920], [null, 24_205, 81_920]))).toEqual([
      'GPU 0: 58% · 23/80 GB',
      'GPU 1: n/a · 24/80 GB',
    ]);
  });
});
