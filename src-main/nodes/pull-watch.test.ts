import { describe, expect, it } from 'vitest';
import { formatBytes, parsePullProgress } from './pull-progress';
import { PullWatch, type PullRules } from './pull-watch';

const MIN = 60_000;
const RULES = { silentMs: 15 * MIN, stallMs: 10 * MIN };

describe('parsePullProgress', () => {
  it.each([
    ['loading: Downloading 6.8GB/15GB', { doneBytes: 6.8e9, totalBytes: 15e9, percent: 45.3 }],
    ['12.3 GB / 15 GB', { doneBytes: 12.3e9, totalBytes: 15e9, percent: 82 }],
    [
      'a3ed95caeb02: Downloading [=====>    ] 345.6MB/1.2GB',
      { doneBytes: 345.6e6, totalBytes: 1.2e9, percent: 28.8 },
    ],
    ['512MiB of 1GiB', { doneBytes: 2 ** 29, totalBytes: 2 ** 30, percent: 50 }],
    ['pulling image: 45%', { doneBytes: null, totalBytes: null, percent: 45 }],
    ['Pulling fs layer', null],
    ['loading', null],
    ['20 GB / 15 GB', null], // done past total: not believed
    ['150%', null],
  ])('%s', (line, want) => {
    expect(parsePullProgress(line)).toEqual(want);
  });

  it('formats bytes as Docker prints them', () => {
    expect([formatBytes(6.8e9), formatBytes(640e6), formatBytes(150e9), formatBytes(12)]).toEqual([
      '6.8 GB',
      '640 MB',
      '150 GB',
      '12 B',
    ]);
  });
});

type Sample = [atMin: number, line: string, isImagePull?: boolean];

/** Feeds the samples (times in minutes from the start of the wait) and asks at `askMin`. */
function verdictAfter(samples: Sample[], askMin: number, rules = RULES) {
  const w = new PullWatch(0, rules);
  for (const [at, line, isImagePull = true] of samples) w.observe({ line, isImagePull }, at * MIN);
  const v = w.verdict(askMin * MIN);
  return v.kind === 'waiting' ? { waitingUntilMin: v.givesUpAt / MIN } : { gaveUp: v.reason };
}

/** A 15 GB pull at 0.6 GB a minute, one look a minute: 25 minutes of steady progress. */
const slowPull: Sample[] = Array.from({ length: 26 }, (_, m) => [
  m,
  `loading: Downloading ${(m * 0.6).toFixed(1)}GB/15GB`,
]);

describe('PullWatch: progressing or stalled', () => {
  it.each<[string, Sample[], number, object, PullRules?]>([
    ['nothing said: the silent bound', [], 14, { waitingUntilMin: 15 }],
    ['nothing said, past the bound', [], 15, { gaveUp: 'no SSH endpoint within 15 min' }],
    [
      'words that are not a pull (Lambda booting): the silent bound, as before',
      [
        [0, 'booting', false],
        [5, 'booting: kernel', false],
        [10, 'booting: sshd', false],
      ],
      15,
      { gaveUp: 'no SSH endpoint within 15 min (last said: "booting: sshd")' },
    ],
    ['a slow pull that keeps moving, at 25 min', slowPull, 25, { waitingUntilMin: 35 }],
    [
      'a pull that moved, then stalled at 3 min: given up 10 min after its last move is not before the silent bound',
      slowPull.slice(0, 4),
      14,
      { waitingUntilMin: 15 },
    ],
    [
      'a pull that stalls after 20 min: waited for until 10 min without progress',
      [...slowPull.slice(0, 21), [25, slowPull[20]![1]], [29, slowPull[20]![1]]],
      29.9,
      { waitingUntilMin: 30 },
    ],
    [
      'the same pull, at 30 min',
      [...slowPull.slice(0, 21), [25, slowPull[20]![1]], [29, slowPull[20]![1]]],
      30,
      {
        gaveUp:
          'its image pull stalled: no progress for 10 min (last said: "loading: Downloading 12.0GB/15GB")',
      },
    ],
    [
      'a pull whose line never changes: no progress, the silent bound',
      [
        [1, 'loading'],
        [8, 'loading'],
        [14, 'loading'],
      ],
      15,
      { gaveUp: 'its image pull showed no progress in 14 min (last said: "loading")' },
    ],
    [
      'an amount that does not grow is not progress (a counter going round)',
      [
        [0, 'loading 40%'],
        [2, 'loading 45%'],
        [4, 'loading 45%'],
        [6, 'loading 44%'],
        [11, 'loading 45%'],
      ],
      15,
      { gaveUp: 'its image pull stalled: no progress for 13 min (last said: "loading 45%")' },
    ],
    [
      'lines going back and forth between two words are not progress',
      [
        [0, 'Pulling fs layer'],
        [1, 'Waiting'],
        [20, 'Pulling fs layer'],
        [30, 'Waiting'],
      ],
      30,
      { gaveUp: 'its image pull stalled: no progress for 29 min (last said: "Waiting")' },
    ],
    [
      'new layers and steps are progress, numbers or not',
      [
        [0, 'aaa: Pulling fs layer'],
        [9, 'aaa: Download complete'],
        [18, 'bbb: Extracting'],
        [27, 'Status: Downloaded newer image'],
      ],
      36,
      { waitingUntilMin: 37 },
    ],
    [
      'a longer pull_stall waits longer, even for a pull that never moved',
      [
        [0, 'loading'],
        [20, 'loading'],
      ],
      20,
      { waitingUntilMin: 30 },
      { silentMs: 15 * MIN, stallMs: 30 * MIN },
    ],
  ])('%s', (_name, samples, askMin, want, rules = RULES) => {
    expect(verdictAfter(samples, askMin, rules)).toEqual(want);
  });

  it('its snapshot carries the last words, the parsed progress and when it gives up', () => {
    const w = new PullWatch(1_000, RULES);
    expect(w.snapshot()).toBeNull();
    w.observe({ line: 'loading: Downloading 1GB/10GB', isImagePull: true }, 2_000);
    w.observe({ line: 'loading: Downloading 5GB/10GB', isImagePull: true }, 20 * MIN);
    expect(w.snapshot()).toEqual({
      line: 'loading: Downloading 5GB/10GB',
      isImagePull: true,
      doneBytes: 5e9,
      totalBytes: 10e9,
      percent: 50,
      since: 1_000,
      pullingSince: 2_000,
      lastProgressAt: 20 * MIN,
      givesUpAt: 30 * MIN,
      stallMs: 10 * MIN,
    });
  });
});
