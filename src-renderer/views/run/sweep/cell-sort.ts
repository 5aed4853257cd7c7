import type { CellStatus, CellView } from '../../../../src-main/contract';
import type { CellScore } from './cell-metric';

/** A column of the cells table: a fixed one, or one of the sweep's params. */
export type CellSortKey =
  'id' | 'status' | 'node' | 'exit' | 'duration' | 'last' | 'best' | `param:${string}`;
export type SortDir = 'asc' | 'desc';
export interface CellSort {
  key: CellSortKey;
  dir: SortDir;
}

/** A row: the cell and its score of the chosen metric. */
export interface CellRow {
  cell: CellView;
  score: CellScore | undefined;
}

/** The order of a cell's life, for sorting by status: waiting, going, then how it ended. */
const STATUS_RANK: Record<CellStatus, number> = {
  queued: 0,
  running: 1,
  completed: 2,
  failed: 3,
  cancelled: 4,
};

/** How long a cell ran (so far, while it runs); null before it starts. */
export function cellDuration(cell: CellView, now: number): number | null {
  if (cell.startedAt === null) return null;
  return Math.max(0, (cell.endedAt ?? now) - cell.startedAt);
}

const text = new Intl.Collator('en', { numeric: true }).compare;

/** A param's values compare as numbers when both are (1e-4 < 3e-4 < 0.001), else as text
 *  with digits read as numbers (`b2` < `b10`). */
export function compareValues(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  if (a.trim() !== '' && b.trim() !== '' && Number.isFinite(x) && Number.isFinite(y)) return x - y;
  return text(a, b);
}

function valueOf(row: CellRow, key: CellSortKey, now: number): number | string | null {
  const c = row.cell;
  switch (key) {
    case 'id':
      return c.index;
    case 'status':
      return STATUS_RANK[c.status];
    case 'node':
      return c.node;
    case 'exit':
      return c.exitCode;
    case 'duration':
      return cellDuration(c, now);
    case 'last':
      return row.score?.last ?? null;
    case 'best':
      return row.score?.best ?? null;
    default:
      return c.values[key.slice('param:'.length)] ?? null;
  }
}

/** A sorted copy: a missing value (not started, no metric, no such param) last either way;
 *  ties in the sweep's own order. */
export function sortCells(rows: readonly CellRow[], sort: CellSort, now: number): CellRow[] {
  const sign = sort.dir === 'asc' ? 1 : -1;
  const isParam = sort.key.startsWith('param:');
  return rows
    .map((row) => ({ row, v: valueOf(row, sort.key, now) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) {
        if (a.v !== b.v) return a.v === null ? 1 : -1;
      } else if (a.v !== b.v) {
        const c =
          typeof a.v === 'number' && typeof b.v === 'number'
            ? a.v - b.v
            : isParam
              ? compareValues(String(a.v), String(b.v))
              : text(String(a.v), String(b.v));
        if (c !== 0) return sign * c;
      }
      return a.row.cell.index - b.row.cell.index;
    })
    .map(({ row }) => row);
}

/** A click on a header: the same column flips; another starts rising, but a metric's
 *  best-first (rising for one that goes down, falling for one that goes up). */
export function nextCellSort(
  current: CellSort,
  key: CellSortKey,
  metricDir: 'min' | 'max' = 'min',
): CellSort {
  if (current.key === key) return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
  const metric = key === 'last' || key === 'best';
  return { key, dir: metric && metricDir === 'max' ? 'desc' : 'asc' };
}
