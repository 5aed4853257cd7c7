import { describe, expect, it } from 'vitest';
import { aheadQualityFor, CompressPace, type Quality, WARMUP_BYTES } from './compress-pace';

const MB = 1e6;

/** A pace that has seen the link take `rateMBps` for half a second, after `compressions`
 *  (quality, MB/s, ratio) were reported; the quality it answers then. */
function answer(
  rateMBps: number,
  compressions: [1 | 4 | 5, number, number][] = [],
  sentBytes = WARMUP_BYTES + 10 * MB,
): Quality {
  const pace = new CompressPace(2);
  for (const [q, speed, ratio] of compressions) {
    // A few of each, so the running averages settle on them.
    for (let i = 0; i < 20; i++) pace.compressed(q, MB, ratio * MB, (MB / (speed * MB)) * 1000);
  }
  pace.next({ atMs: 1000, sentBytes, drainedBytes: sentBytes - 0.5 * rateMBps * MB });
  return pace.next({ atMs: 1500, sentBytes, drainedBytes: sentBytes });
}

describe('CompressPace', () => {
  it.each([
    // name, link MB/s, compressions measured (quality, MB/s, ratio), quality
    ['a slow link, nothing measured yet: the densest', 12, [], 5],
    ['a slow link, q5 slowed by a busy CPU: q4 keeps it busy', 12, [[5, 30, 0.2]], 4],
    [
      'a slow link, even q4 too slow',
      12,
      [
        [5, 30, 0.2],
        [4, 25, 0.21],
      ],
      1,
    ],
    [
      'a slow link, a CPU too slow for any quality: still q1',
      12,
      [
        [5, 5, 0.2],
        [4, 8, 0.21],
        [1, 20, 0.24],
      ],
      1,
    ],
    ['a fast link, q1 cannot keep up: raw', 220, [], null],
    ['a fast link with a fast CPU: q1 still pays', 100, [[1, 400, 0.24]], 1],
    [
      'a link just below fast, every quality too slow: q1, not raw',
      50,
      [
        [5, 10, 0.2],
        [4, 20, 0.21],
        [1, 60, 0.24],
      ],
      1,
    ],
  ] as const)('%s', (_name, rate, compressions, quality) => {
    expect(answer(rate, compressions as unknown as [1 | 4 | 5, number, number][])).toBe(quality);
  });

  it('answers the fast quality until the SSH window has filled and half a second is seen', () => {
    const pace = new CompressPace(2);
    expect(pace.next({ atMs: 0, sentBytes: 0, drainedBytes: 0 })).toBe(1);
    // A fast link, but only 3 MB out: the window took them, not the link.
    expect(pace.next({ atMs: 10, sentBytes: 3 * MB, drainedBytes: 3 * MB })).toBe(1);
    expect(answer(220, [], WARMUP_BYTES - 1)).toBe(1);
    // Past the warm-up, a link that took 20 MB in 60 ms is fast.
    expect(pace.next({ atMs: 60, sentBytes: 20 * MB, drainedBytes: 20 * MB })).toBeNull();
  });

  it('judges the link by the last half second, not the whole push', () => {
    const pace = new CompressPace(2);
    let drained = WARMUP_BYTES;
    pace.next({ atMs: 0, sentBytes: drained, drainedBytes: drained });
    // 2 s of a fast link…
    for (let t = 100; t <= 2000; t += 100) {
      drained += 20 * MB;
      pace.next({ atMs: t, sentBytes: drained, drainedBytes: drained });
    }
    // …then it slows to 10 MB/s for a second: the answer follows.
    let q: Quality = null;
    for (let t = 2100; t <= 3000; t += 100) {
      drained += 1 * MB;
      // Bytes queued for it: the link, not the compressions, is the limit.
      q = pace.next({ atMs: t, sentBytes: drained + 2 * MB, drainedBytes: drained });
    }
    expect(q).toBe(5);
  });
});

describe('aheadQualityFor: the densest quality one compression keeps ahead of the link at', () => {
  it.each([
    ['a 20 Mbit/s uplink', 2.4, 5],
    ['a 100 Mbit/s link', 12, 5],
    ['a 400 Mbit/s link', 50, 4],
    // Before: none above 60 MB/s, so a 1 Gbit/s link never had chunks ahead.
    ['a 1 Gbit/s link', 100, 1],
    ['loopback on this machine', 165, null],
    ['a 10 Gbit/s link', 1100, null],
  ] as const)('%s (%s MB/s): %s', (_name, rateMBps, quality) => {
    expect(aheadQualityFor(rateMBps * MB)).toBe(quality);
  });
});

describe('CompressPace.aheadQuality: asked at raw segments', () => {
  it.each([
    ['before the warm-up is out', 12, WARMUP_BYTES - 1, [], null],
    ['a 100 Mbit/s link', 12, WARMUP_BYTES + 10 * MB, [], 5],
    ['a 400 Mbit/s link', 50, WARMUP_BYTES + 50 * MB, [], 4],
    ['a 1 Gbit/s link', 92, WARMUP_BYTES + 100 * MB, [], 1],
    ['a 2 Gbit/s link', 250, WARMUP_BYTES + 200 * MB, [], null],
    // Inline q5 compressions timed at 8 MB/s on a busy pool (waits included) do not keep a
    // 100 Mbit/s link from its chunks ahead.
    ['a 100 Mbit/s link, inline q5 timed slow', 12, WARMUP_BYTES + 10 * MB, [8], 5],
  ] as const)('%s: %s MB/s', (_name, rateMBps, sentBytes, q5Speeds, quality) => {
    const pace = new CompressPace(2);
    for (const speed of q5Speeds)
      for (let i = 0; i < 20; i++) pace.compressed(5, MB, 0.2 * MB, (1 / speed) * 1000);
    expect(pace.aheadQuality({ atMs: 0, sentBytes, drainedBytes: sentBytes })).toBe(null);
    const drained = sentBytes - 0.5 * rateMBps * MB;
    pace.aheadQuality({ atMs: 1000, sentBytes, drainedBytes: drained });
    expect(pace.aheadQuality({ atMs: 1500, sentBytes, drainedBytes: sentBytes })).toBe(quality);
  });

  it('answers, and keeps answering, while raw segments are cut as fast as a slow link takes them (nothing queued)', () => {
    const pace = new CompressPace(2);
    let drained = WARMUP_BYTES;
    const answers: (number | null)[] = [];
    for (let t = 0; t <= 500; t += 100) {
      answers.push(pace.aheadQuality({ atMs: t, sentBytes: drained, drainedBytes: drained }));
      drained += 1.2 * MB; // 12 MB/s
    }
    // No answer before the rate spans a quarter second; then q5, and it stays.
    expect(answers).toEqual([null, null, null, 5, 5, 5]);
  });

  it('a fast link that starts slowly (its sender still warming): judged once the rate spans a quarter second', () => {
    const pace = new CompressPace(2);
    let drained = WARMUP_BYTES;
    const answers: (number | null)[] = [];
    for (const [t, mbPer100ms] of [
      [0, 0],
      [100, 4],
      [200, 15],
      [300, 15],
      [400, 15],
    ] as const) {
      drained += mbPer100ms * MB;
      answers.push(pace.aheadQuality({ atMs: t, sentBytes: drained, drainedBytes: drained }));
    }
    // 40 MB/s over the first 100 ms would have said q5; over 300 ms it is 113 MB/s: q1.
    expect(answers).toEqual([null, null, null, 1, 1]);
  });

  it('takes the rate earlier pushes measured until this one has measured its own', () => {
    const pace = new CompressPace(2);
    let drained = WARMUP_BYTES;
    const answers: (number | null)[] = [];
    for (let t = 0; t <= 400; t += 100) {
      // Earlier pushes measured 100 Mbit/s; this one finds 100 MB/s.
      answers.push(
        pace.aheadQuality({ atMs: t, sentBytes: drained, drainedBytes: drained }, 12 * MB),
      );
      drained += 10 * MB;
    }
    expect(answers).toEqual([5, 5, 5, 1, 1]);
  });
});

describe('CompressPace when the link waits on the compressions', () => {
  /** Cuts every 100 ms, the link taking `rateMBps`, with `backlog` bytes queued for it at
   *  each cut; the answers. */
  function cuts(
    rateMBps: number,
    backlogs: number[],
    compressions: [1 | 4 | 5, number, number][] = [],
  ) {
    const pace = new CompressPace(2);
    for (const [q, speed, ratio] of compressions) {
      for (let i = 0; i < 20; i++) pace.compressed(q, MB, ratio * MB, (MB / (speed * MB)) * 1000);
    }
    let drained = WARMUP_BYTES;
    pace.next({ atMs: 0, sentBytes: drained, drainedBytes: drained });
    return backlogs.map((backlog, i) => {
      drained += 0.1 * rateMBps * MB;
      return pace.next({
        atMs: (i + 1) * 100,
        sentBytes: drained + backlog,
        drainedBytes: drained,
      });
    });
  }
  /** q5 puts out 11.4 MB/s with two at once: just ahead of a 10 MB/s link. */
  const q5Barely: [1 | 4 | 5, number, number][] = [[5, 26, 0.22]];
  const busyCpu: [1 | 4 | 5, number, number][] = [
    [5, 8, 0.2],
    [4, 12, 0.21],
    [1, 20, 0.24],
  ];

  it.each([
    // name, link MB/s (as seen), backlog at each cut, compressions, answers
    [
      'a loaded CPU feeding loopback: the link waits, so raw',
      40,
      [0, 0, 0, 0],
      busyCpu,
      [1, null, null, null],
    ],
    [
      'the same with bytes queued for the link: the link is the limit, q1 stays',
      40,
      [2 * MB, 2 * MB, 2 * MB, 2 * MB],
      busyCpu,
      [1, 1, 1, 1],
    ],
    [
      'a slow link, an idle CPU: q5 though the link waited once',
      10,
      [0, 2 * MB, 2 * MB, 2 * MB],
      [],
      [5, 5, 5, 5],
    ],
    [
      'a slow link waiting on small files read one by one, an idle CPU: q5 stays (raw would not feed it faster)',
      10,
      [0, 0, 0, 0],
      [],
      [5, 5, 5, 5],
    ],
    [
      'a slow link q5 barely keeps ahead of, waiting: one step faster, to a quality well ahead of it',
      10,
      [0, 0, 0, 0],
      q5Barely,
      [5, 4, 4, 4],
    ],
    [
      'bytes queue for the link again: the cap lifts',
      10,
      [0, 0, 0, 2 * MB, 2 * MB, 2 * MB, 2 * MB, 2 * MB],
      q5Barely,
      [5, 4, 4, 4, 4, 4, 5, 5],
    ],
  ] as const)('%s', (_name, rate, backlogs, compressions, answers) => {
    expect(
      cuts(rate, [...backlogs], compressions as unknown as [1 | 4 | 5, number, number][]),
    ).toEqual(answers);
  });
});
