import { describe, expect, it } from 'vitest';
import { cellView } from './cell-view.test-util';
import {
  cellDuration,
  compareValues,
  nextCellSort,
  sortCells,
  type CellRow,
  type CellSort,
} from './cell-sort';

const rows: CellRow[] = [
  {
    cell: cellView(0, {
      values: { LR: '1e-3', OPT: 'adam10' },
      status: 'completed',
      node: 'node-1',
      exitCode: 0,
      startedAt: 1_000,
      endedAt: 9_000,
    }),
    score: { last: 0.3, best: 0.2 },
  },
  {
    cell: cellView(1, {
      values: { LR: '3e-4', OPT: 'adam2' },
      status: 'failed',
      node: 'node-0',
      exitCode: 1,
      startedAt: 2_000,
      endedAt: 4_000,
    }),
    score: { last: 0.9, best: 0.8 },
  },
  {
    cell: cellView(2, {
      values: { LR: '0.0001' },
      status: 'running',
      node: 'node-0',
      startedAt: 5_000,
    }),
    score: undefined,
  },
  { cell: cellView(3, { values: { LR: '3e-4', OPT: 'sgd' } }), score: undefined },
];
const NOW = 10_000;
const order = (sort: CellSort) => sortCells(rows, sort, NOW).map((r) => r.cell.id);

describe('sortCells', () => {
  it('by a param: numbers as numbers, ties in sweep order', () => {
    expect(order({ key: 'param:LR', dir: 'asc' })).toEqual(['j2', 'j1', 'j3', 'j0']);
    expect(order({ key: 'param:LR', dir: 'desc' })).toEqual(['j0', 'j1', 'j3', 'j2']);
  });

  it('by a text param: digits as numbers; a cell without it last either way', () => {
    expect(order({ key: 'param:OPT', dir: 'asc' })).toEqual(['j1', 'j0', 'j3', 'j2']);
    expect(order({ key: 'param:OPT', dir: 'desc' })).toEqual(['j3', 'j0', 'j1', 'j2']);
  });

  it('by status in the order of a life: queued, running, completed, failed', () => {
    expect(order({ key: 'status', dir: 'asc' })).toEqual(['j3', 'j2', 'j0', 'j1']);
  });

  it('by duration (so far, while running); not started last', () => {
    expect(order({ key: 'duration', dir: 'desc' })).toEqual(['j0', 'j2', 'j1', 'j3']);
    expect(order({ key: 'duration', dir: 'asc' })).toEqual(['j1', 'j2', 'j0', 'j3']);
  });

  it('by the metric; cells without it last either way', () => {
    expect(order({ key: 'best', dir: 'asc' })).toEqual(['j0', 'j1', 'j2', 'j3']);
    expect(order({ key: 'last', dir: 'desc' })).toEqual(['j1', 'j0', 'j2', 'j3']);
  });

  it('by node, exit and id', () => {
    expect(order({ key: 'node', dir: 'asc' })).toEqual(['j1', 'j2', 'j0', 'j3']);
    expect(order({ key: 'exit', dir: 'desc' })).toEqual(['j1', 'j0', 'j2', 'j3']);
    expect(order({ key: 'id', dir: 'desc' })).toEqual(['j3', 'j2', 'j1', 'j0']);
  });
});

describe('nextCellSort', () => {
  it('flips the same column; another starts rising, a metric best first', () => {
    expect(nextCellSort({ key: 'id', dir: 'asc' }, 'id')).toEqual({ key: 'id', dir: 'desc' });
    expect(nextCellSort({ key: 'id', dir: 'asc' }, 'param:LR')).toEqual({
      key: 'param:LR',
      dir: 'asc',
    });
    expect(nextCellSort({ key: 'id', dir: 'asc' }, 'best', 'min').dir).toBe('asc');
    expect(nextCellSort({ key: 'id', dir: 'asc' }, 'last', 'max').dir).toBe('desc');
  });
});

describe('cellDuration and compareValues', () => {
  it('a cell not started has none; a running one runs until now', () => {
    expect(cellDuration(cellView(0), NOW)).toBeNull();
    expect(cellDuration(cellView(0, { startedAt: 4_000 }), NOW)).toBe(6_000);
  });

  it('compares numbers as numbers and text with its digits', () => {
    expect(compareValues('1e-4', '3e-5')).toBeGreaterThan(0);
    expect(compareValues('b2', 'b10')).toBeLessThan(0);
    expect(compareValues('', '0')).toBeLessThan(0);
  });
});
