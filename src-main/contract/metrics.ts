// A job's metrics as series: the lines it appended to `$TENDER_METRICS` (one JSON object
// each, e.g. `{"step": 10, "loss": 0.31, "lr": 3e-4}`), which the agent logs as records of
// src `metrics` (docs/agent-protocol.md, "Metrics"). Pure; the renderer and the CLI draw
// the same series.
import { z } from 'zod';

/** The log source of metrics lines: data, never printed as the job's output. */
export const METRICS_SOURCE = 'metrics';

/** One metric of one node's job: x is the line's `step` (else its `epoch`, else its index
 *  among that node's and job's lines), y the metric's value. */
export const MetricSeries = z.object({
  /** The node's key (`<run>/node-0`), as the datastream names it. */
  nodeId: z.string(),
  /** The sweep cell (`j03`) the lines belong to; null outside a sweep. */
  cellId: z.string().nullable(),
  name: z.string(),
  points: z.array(z.tuple([z.number(), z.number()])),
});
export type MetricSeries = z.infer<typeof MetricSeries>;

/** What `metricSeries` reads: a metrics record's node, seq and line. */
export interface MetricsRecord {
  node: string;
  seq: number;
  line: string;
}

export interface MetricSeriesResult {
  /** By node, then cell, then metric, each in the order its first line came. */
  series: MetricSeries[];
  /** Lines that were no JSON object (not JSON, an array, a number, a cut line). */
  skipped: number;
}

/** The keys that give a line its x, in order of preference. */
const X_KEYS = ['step', 'epoch'] as const;

/**
 * Series from metrics records, in the order given (seq order). Every finite numeric value
 * of a line is a point of the metric named by its key, except the key that gave the x;
 * other values (strings, booleans, nested objects, NaN) are left out. A line that is not
 * a JSON object is counted in `skipped`, never thrown. `cellOf` attributes a record to a
 * sweep cell (`cellId`); without it every record's cell is null.
 */
export function metricSeries(
  records: readonly MetricsRecord[],
  cellOf: (nodeId: string, seq: number) => string | null = () => null,
): MetricSeriesResult {
  const groups = new Map<string, { lines: number; byName: Map<string, MetricSeries> }>();
  const series: MetricSeries[] = [];
  let skipped = 0;
  for (const r of records) {
    const fields = parseObject(r.line);
    if (!fields) {
      skipped++;
      continue;
    }
    const cellId = cellOf(r.node, r.seq);
    const key = groupKey(r.node, cellId);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { lines: 0, byName: new Map() }));
    const xKey = X_KEYS.find((k) => isFiniteNumber(fields[k]));
    const x = xKey ? (fields[xKey] as number) : group.lines;
    group.lines++;
    for (const [name, value] of Object.entries(fields)) {
      if (name === xKey || !isFiniteNumber(value)) continue;
      let s = group.byName.get(name);
      if (!s) {
        s = { nodeId: r.node, cellId, name, points: [] };
        group.byName.set(name, s);
        series.push(s);
      }
      s.points.push([x, value]);
    }
  }
  return { series: sortByGroup(series), skipped };
}

/** Keeps each metric's first-seen order, grouped by node, then cell (first seen). */
function sortByGroup(series: MetricSeries[]): MetricSeries[] {
  const rank = new Map<string, number>();
  const groupOf = (s: MetricSeries) => groupKey(s.nodeId, s.cellId);
  for (const s of series) if (!rank.has(groupOf(s))) rank.set(groupOf(s), rank.size);
  const nodeRank = new Map<string, number>();
  for (const s of series) if (!nodeRank.has(s.nodeId)) nodeRank.set(s.nodeId, nodeRank.size);
  return series
    .map((s, i) => ({ s, i }))
    .sort(
      (a, b) =>
        nodeRank.get(a.s.nodeId)! - nodeRank.get(b.s.nodeId)! ||
        rank.get(groupOf(a.s))! - rank.get(groupOf(b.s))! ||
        a.i - b.i,
    )
    .map(({ s }) => s);
}

function groupKey(nodeId: string, cellId: string | null): string {
  return JSON.stringify([nodeId, cellId]);
}

function parseObject(line: string): Record<string, unknown> | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : null;
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}
