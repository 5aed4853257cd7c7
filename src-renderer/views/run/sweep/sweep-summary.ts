import type { RunView } from '../../../../src-main/contract';

export type SweepCounts = NonNullable<RunView['sweep']>;

/** The order counts are said in: what is done, what goes on, what waits, what went wrong. */
const ORDER = ['completed', 'running', 'queued', 'failed', 'cancelled'] as const;

/** `24 cells: 20 completed, 3 running, 1 failed` (counts of none left out). */
export function sweepSummary(c: SweepCounts): string {
  const parts = ORDER.filter((k) => c[k] > 0).map((k) => `${c[k]} ${k}`);
  const head = `${c.total} cell${c.total === 1 ? '' : 's'}`;
  return parts.length > 0 ? `${head}: ${parts.join(', ')}` : head;
}

/** Cells `run.rerun {failed: true}` would run again: the failed and the cancelled. */
export function rerunnable(c: SweepCounts): number {
  return c.failed + c.cancelled;
}
