import { describe, expect, it } from 'vitest';
import { LinkMeter, MIN_MEASURED_BYTES } from './link-meter';

const MiB = 1024 * 1024;

describe('LinkMeter', () => {
  it.each([
    // name, warm-up, (ms, bytes) handed to the channel, answer at, rate (bytes/s)
    [
      'a 100 Mbit/s push: the window fills at once, then the link sets the pace',
      4 * MiB,
      [
        [0, 2 * MiB],
        [5, 4 * MiB],
        [1005, 16 * MiB],
      ],
      1005,
      (12 * MiB * 1000) / 1000,
    ],
    [
      'the answer comes after the last bytes crossed',
      4 * MiB,
      [
        [0, 4 * MiB],
        [500, 12 * MiB],
      ],
      1000,
      (8 * MiB * 1000) / 1000,
    ],
    [
      'too small a push says nothing',
      4 * MiB,
      [
        [0, 4 * MiB],
        [900, 6 * MiB],
      ],
      1000,
      undefined,
    ],
    ['never past the warm-up', 4 * MiB, [[0, 3 * MiB]], 1000, undefined],
    [
      'too short a span',
      4 * MiB,
      [
        [0, 4 * MiB],
        [10, 40 * MiB],
      ],
      20,
      undefined,
    ],
  ] as const)('%s', (_name, warmup, notes, endMs, rate) => {
    const meter = new LinkMeter(warmup);
    for (const [at, bytes] of notes) meter.note(at, bytes);
    expect(meter.rate(endMs)).toBe(rate);
  });

  it('needs MIN_MEASURED_BYTES after the warm-up', () => {
    const meter = new LinkMeter(0);
    meter.note(0, 0);
    meter.note(100, MIN_MEASURED_BYTES - 1);
    expect(meter.rate(100)).toBeUndefined();
    meter.note(100, MIN_MEASURED_BYTES);
    expect(meter.rate(100)).toBe(MIN_MEASURED_BYTES * 10);
  });
});
