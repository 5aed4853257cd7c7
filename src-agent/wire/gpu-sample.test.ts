import { describe, expect, it } from 'vitest';
import {
  type GpuSample,
  GpuIdleClock,
  decodeGpuSample,
  encodeGpuSample,
  isBelow,
} from './gpu-sample';

const sample = (t: number, ...utils: (number | null)[]): GpuSample => ({
  t,
  gpus: utils.map((util, i) => ({ i, util, memUsed: 100, memTotal: 81920 })),
});

describe('the gpu record line', () => {
  it('round-trips, compactly', () => {
    const s = sample(1_764_480_000_123, 87, null);
    const line = encodeGpuSample(s);
    expect(line).toBe(
      '{"t":1764480000123,"gpus":[{"i":0,"util":87,"memUsed":100,"memTotal":81920},{"i":1,"util":null,"memUsed":100,"memTotal":81920}]}',
    );
    expect(decodeGpuSample(line)).toEqual(s);
  });

  it.each([
    ['not JSON', 'epoch 1 loss 0.4'],
    ['no t', '{"gpus":[]}'],
    ['gpus not a list', '{"t":1,"gpus":{}}'],
    ['a GPU without index', '{"t":1,"gpus":[{"util":3}]}'],
    ['null', 'null'],
  ])('reads %s as no sample', (_name, line) => {
    expect(decodeGpuSample(line)).toBeNull();
  });
});

describe('isBelow', () => {
  it.each([
    { name: 'all below', s: sample(0, 0, 4), want: true },
    { name: 'one at the threshold', s: sample(0, 0, 5), want: false },
    { name: 'one unreadable', s: sample(0, 0, null), want: false },
    { name: 'no GPUs', s: sample(0), want: false },
  ])('$name', ({ s, want }) => expect(isBelow(s, 5)).toBe(want));
});

describe('GpuIdleClock', () => {
  /** Each step: [t, utils…]; then belowSince(threshold). */
  it.each([
    { name: 'nothing before the first sample', steps: [], threshold: 5, want: null },
    {
      name: 'idle from the first idle sample',
      steps: [
        [10, 0, 1],
        [15, 2, 3],
      ],
      threshold: 5,
      want: 10,
    },
    {
      name: 'a busy sample restarts it',
      steps: [
        [10, 0],
        [15, 60],
        [20, 0],
        [25, 1],
      ],
      threshold: 5,
      want: 20,
    },
    {
      name: 'busy now',
      steps: [
        [10, 0],
        [15, 6],
      ],
      threshold: 5,
      want: null,
    },
    { name: 'one busy GPU of two is busy', steps: [[10, 0, 90]], threshold: 5, want: null },
    {
      name: 'a GPU without a reading is never idle',
      steps: [[10, 0, null]],
      threshold: 50,
      want: null,
    },
    {
      name: 'another threshold, the same history',
      steps: [
        [10, 3],
        [15, 30],
        [20, 8],
      ],
      threshold: 50,
      want: 10,
    },
    { name: 'at the threshold is not below', steps: [[10, 5]], threshold: 5, want: null },
    { name: 'a fractional threshold: 5 < 5.5', steps: [[10, 5]], threshold: 5.5, want: 10 },
    { name: 'below 100%', steps: [[10, 99]], threshold: 100, want: 10 },
  ])('$name', ({ steps, threshold, want }) => {
    const clock = new GpuIdleClock();
    for (const [t, ...utils] of steps as (number | null)[][]) clock.note(sample(t!, ...utils), t!);
    expect(clock.belowSince(threshold)).toBe(want);
  });

  it('forgets everything on reset', () => {
    const clock = new GpuIdleClock();
    clock.note(sample(10, 0), 10);
    clock.reset();
    expect(clock.belowSince(5)).toBeNull();
  });
});
