import { describe, expect, it } from 'vitest';
import { LinkMeter, metered, MIN_MEASURED_BYTES } from './link-meter';

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
    expect(meter.measure(endMs)?.bytesPerS).toBe(rate);
  });

  it('needs MIN_MEASURED_BYTES after the warm-up', () => {
    const meter = new LinkMeter(0);
    meter.note(0, 0);
    meter.note(100, MIN_MEASURED_BYTES - 1);
    expect(meter.measure(100)).toBeUndefined();
    meter.note(100, MIN_MEASURED_BYTES);
    expect(meter.measure(100)?.bytesPerS).toBe(MIN_MEASURED_BYTES * 10);
  });
});

describe('LinkMeter, whether the link was the limit', () => {
  it.each([
    // name, waits on the source and on the link after the warm-up, link-bound
    [
      'a slow link: the sender waits on the channel',
      [
        [10, 'source'],
        [900, 'link'],
      ],
      true,
    ],
    [
      'a fast link, a busy CPU: the channel waits on the sender',
      [
        [800, 'source'],
        [90, 'link'],
      ],
      false,
    ],
    [
      'waits before the warm-up do not count',
      [
        [0, 'link'],
        [50, 'source'],
      ],
      false,
    ],
  ] as const)('%s', (_name, waits, isLinkBound) => {
    const meter = new LinkMeter(4 * MiB);
    meter.note(0, MiB);
    meter.waited('link', 5000); // still in the warm-up: not counted
    meter.note(10, 4 * MiB);
    for (const [ms, on] of waits) meter.waited(on, ms);
    meter.note(1000, 20 * MiB);
    expect(meter.measure(1000)?.isLinkBound).toBe(isLinkBound);
  });

  it('counts the waits of a metered stream', async () => {
    const meter = new LinkMeter(0);
    let total = 0;
    async function* source() {
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 20)); // the tar is slow to make bytes
        yield Buffer.alloc(MiB);
      }
    }
    for await (const _chunk of metered(source(), meter, (n) => (total = n))) {
      // the channel takes each at once
    }
    expect(total).toBe(8 * MiB);
    expect(meter.measure(performance.now())?.isLinkBound).toBe(false);
  });
});
