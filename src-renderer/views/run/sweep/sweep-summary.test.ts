import { describe, expect, it } from 'vitest';
import { rerunnable, sweepSummary } from './sweep-summary';

const counts = (c: Partial<Parameters<typeof sweepSummary>[0]>) => ({
  total: 0,
  queued: 0,
  running: 0,
  completed: 0,
  failed: 0,
  cancelled: 0,
  ...c,
});

describe('sweepSummary', () => {
  it('says the counts there are, done first', () => {
    expect(sweepSummary(counts({ total: 24, completed: 20, running: 3, failed: 1 }))).toBe(
      '24 cells: 20 completed, 3 running, 1 failed',
    );
    expect(sweepSummary(counts({ total: 1, queued: 1 }))).toBe('1 cell: 1 queued');
    expect(sweepSummary(counts({ total: 6, completed: 3, failed: 2, cancelled: 1 }))).toBe(
      '6 cells: 3 completed, 2 failed, 1 cancelled',
    );
  });

  it('counts the failed and the cancelled as what a rerun of failed cells runs', () => {
    expect(rerunnable(counts({ total: 6, failed: 2, cancelled: 1 }))).toBe(3);
    expect(rerunnable(counts({ total: 6, completed: 6 }))).toBe(0);
  });
});
