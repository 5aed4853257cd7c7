import { describe, expect, it } from 'vitest';
import type { CellStatus } from '../../contract';
import { sweepOutcome } from './sweep-outcome';
import { cellAfterFailure } from './cell-retry';

const cells = (...s: CellStatus[]) =>
  s.map((status, i) => ({ id: `j${i}`, status, reason: status === 'completed' ? null : `r${i}` }));

describe('sweepOutcome', () => {
  it.each([
    [cells('completed', 'completed'), false, 'completed', null],
    [cells('completed', 'failed', 'failed'), false, 'failed', '2 of 3 cells failed (j1: r1)'],
    [cells('completed', 'queued'), false, 'failed', '1 of 2 cells failed (j1: r1)'],
    [cells('completed', 'cancelled'), false, 'completed', '1 of 2 cells cancelled'],
    [cells('completed', 'cancelled'), true, 'cancelled', '1 of 2 cells cancelled'],
    [cells('cancelled', 'cancelled'), false, 'cancelled', '2 of 2 cells cancelled'],
    [cells('cancelled', 'failed'), true, 'failed', '1 of 2 cells failed (j1: r1)'],
  ] as const)('%j cancelled=%s → %s', (rows, isCancelled, status, reason) => {
    expect(sweepOutcome([...rows], isCancelled)).toEqual({ status, failedReason: reason });
  });
});

describe('cellAfterFailure', () => {
  it.each([
    ['node_lost', 1, 1, ['node_lost'], 'queued'],
    ['node_lost', 2, 1, ['node_lost'], 'failed'],
    ['node_lost', 1, 0, ['node_lost'], 'failed'],
    ['preempted', 1, 3, ['node_lost'], 'failed'],
    ['exit_code:137', 1, 2, ['exit_code:137'], 'queued'],
    ['exit_code:1', 1, 2, ['exit_code:137'], 'failed'],
    ['cancelled', 1, 5, ['node_lost'], 'failed'],
  ] as const)('%s after %i start(s), max %i, on %j → %s', (cause, tries, maxRestarts, on, out) => {
    expect(cellAfterFailure({ cause, tries, maxRestarts, recoverOn: [...on] })).toBe(out);
  });
});
