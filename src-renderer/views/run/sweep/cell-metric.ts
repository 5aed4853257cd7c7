import type { MetricSeries } from '../../../../src-main/contract';

/** Which way a metric gets better. */
export type Direction = 'min' | 'max';

/** Losses and errors get better going down; anything else (accuracy, reward) going up. */
export function defaultDirection(metric: string): Direction {
  return /loss|err/i.test(metric) ? 'min' : 'max';
}

/** One cell's value of a metric: its newest point, and its best one. */
export interface CellScore {
  last: number | null;
  best: number | null;
}

/**
 * Each cell's last and best value of `metric`, by cell id. Last: the newest point the
 * cell reported (its last line); best: the least or the greatest of all its points. A
 * cell whose series has no cell id (not attributed yet) has no score.
 */
export function cellScores(
  series: readonly MetricSeries[],
  metric: string,
  direction: Direction,
): Map<string, CellScore> {
  const better =
    direction === 'min' ? (a: number, b: number) => a < b : (a: number, b: number) => a > b;
  const out = new Map<string, CellScore>();
  for (const s of series) {
    if (s.name !== metric || s.cellId === null || s.points.length === 0) continue;
    const score = out.get(s.cellId) ?? { last: null, best: null };
    let best = score.best;
    for (const [, y] of s.points) if (best === null || better(y, best)) best = y;
    out.set(s.cellId, { last: s.points[s.points.length - 1]![1], best });
  }
  return out;
}

/** The metric names of a sweep's cells, in the order they first came. */
export function cellMetricNames(series: readonly MetricSeries[]): string[] {
  const names = new Set<string>();
  for (const s of series) if (s.cellId !== null) names.add(s.name);
  return [...names];
}
