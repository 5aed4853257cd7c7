import { describe, expect, it } from 'vitest';
import { type StallFacts, STALL_AFTER_MS, isStalled } from './stall-rule';

const MIN = 60_000;
const T = 1_800_000_000_000;
/** A running job, its GPUs idle for 30 min, its last line 30 min ago, sampled just now. */
const base: StallFacts = {
  isJobRunning: true,
  now: T,
  latestAt: T - 5_000,
  gpuIdleSince: T - 30 * MIN,
  lastLineAt: T - 30 * MIN,
};

describe('isStalled', () => {
  it.each<{ name: string; facts: Partial<StallFacts>; want: boolean }>([
    { name: 'quiet and idle for 30 min', facts: {}, want: true },
    { name: 'a line 9 min ago', facts: { lastLineAt: T - 5_000 - 9 * MIN }, want: false },
    {
      name: 'a line exactly 10 min ago',
      facts: { lastLineAt: T - 5_000 - STALL_AFTER_MS },
      want: true,
    },
    { name: 'GPUs idle only for 2 min', facts: { gpuIdleSince: T - 2 * MIN }, want: false },
    { name: 'a GPU busy now (or unreadable)', facts: { gpuIdleSince: null }, want: false },
    { name: 'no log line ever, GPUs idle 30 min', facts: { lastLineAt: null }, want: true },
    { name: 'no job running (a warm node)', facts: { isJobRunning: false }, want: false },
    { name: 'no sample at all', facts: { latestAt: null, gpuIdleSince: null }, want: false },
    { name: 'the latest sample is 4 min old', facts: { latestAt: T - 4 * MIN }, want: false },
    {
      name: 'a node clock 1 min ahead is still fresh',
      facts: { latestAt: T + MIN, gpuIdleSince: T - 30 * MIN },
      want: true,
    },
    {
      name: 'a shorter threshold of its own',
      facts: { lastLineAt: T - 3 * MIN, stallAfterMs: MIN },
      want: true,
    },
  ])('$name: $want', ({ facts, want }) => {
    expect(isStalled({ ...base, ...facts })).toBe(want);
  });
});
