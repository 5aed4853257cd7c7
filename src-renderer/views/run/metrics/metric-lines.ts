import type { MetricSeries } from '../../../../src-main/contract';
import { logicalOf } from '../../../lib/format';
import type { Points } from './align';
import { colourAt } from './palette';

/** One line of a chart: a node's or a sweep cell's values of one metric. */
export interface ChartLine {
  /** `cell:j03` or `node:<run>/node-0`: the same line in every chart. */
  key: string;
  label: string;
  colour: string;
  points: Points;
}

export interface MetricChartModel {
  name: string;
  lines: ChartLine[];
}

/** Whose line a series is: its sweep cell when the series knows it, else its node. */
export function lineIdentity(s: Pick<MetricSeries, 'nodeId' | 'cellId'>): {
  key: string;
  label: string;
} {
  return s.cellId !== null
    ? { key: `cell:${s.cellId}`, label: s.cellId }
    : { key: `node:${s.nodeId}`, label: logicalOf(s.nodeId) };
}

const byNumbers = new Intl.Collator('en', { numeric: true }).compare;

/**
 * One chart per metric, in the order the metrics first came; in each, one line per node
 * (per cell in a sweep), cells first then nodes, each in id order, coloured by its place
 * among all the run's lines so a cell has one colour in every chart. A cell that ran on
 * two nodes (put back in the queue) is one line.
 */
export function metricCharts(series: readonly MetricSeries[]): MetricChartModel[] {
  const ids = new Map<string, { key: string; label: string; isCell: boolean }>();
  for (const s of series) {
    const id = lineIdentity(s);
    if (!ids.has(id.key)) ids.set(id.key, { ...id, isCell: s.cellId !== null });
  }
  const order = [...ids.values()].sort(
    (a, b) => Number(b.isCell) - Number(a.isCell) || byNumbers(a.label, b.label),
  );
  const colour = new Map(order.map((l, i) => [l.key, colourAt(i)]));
  const rank = new Map(order.map((l, i) => [l.key, i]));

  const charts = new Map<string, Map<string, ChartLine>>();
  for (const s of series) {
    let lines = charts.get(s.name);
    if (!lines) charts.set(s.name, (lines = new Map()));
    const id = lineIdentity(s);
    const line = lines.get(id.key);
    if (line) line.points = line.points.concat(s.points);
    else lines.set(id.key, { ...id, colour: colour.get(id.key)!, points: s.points });
  }
  return [...charts].map(([name, lines]) => ({
    name,
    lines: [...lines.values()].sort((a, b) => rank.get(a.key)! - rank.get(b.key)!),
  }));
}
