import type { CommandOutput, MetricSeries } from '../../../../src-main/contract';

/** What the run view holds of a run's metrics: every series so far, and where each node's
 *  agent log was read up to (the next poll asks from the seq after). */
export interface HeldMetrics {
  series: MetricSeries[];
  /** Logical node id (`node-0`) → the highest seq read of its agent log. */
  readTo: Record<string, number>;
  /** Lines that were no JSON object, over every poll. */
  skipped: number;
}

export const NO_METRICS: HeldMetrics = { series: [], readTo: {}, skipped: 0 };

/** `run.metrics` of one node (its name, `node-0`) from a seq on. */
export type ReadMetrics = (
  nodeName: string,
  fromSeq: number,
) => Promise<CommandOutput<'run.metrics'>>;

/** A series' identity: its node, its cell, its metric. */
export function seriesKey(s: Pick<MetricSeries, 'nodeId' | 'cellId' | 'name'>): string {
  return JSON.stringify([s.nodeId, s.cellId, s.name]);
}

/**
 * What a poll read, added to what is held: the points of a known series go on its end (a
 * new series object, so a chart holding the old one sees the change; the others are kept
 * as they are), a new series comes after the others.
 */
export function mergeSeries(
  held: readonly MetricSeries[],
  incoming: readonly MetricSeries[],
): MetricSeries[] {
  if (incoming.length === 0) return held as MetricSeries[];
  const next = held.slice();
  const at = new Map(held.map((s, i) => [seriesKey(s), i]));
  for (const s of incoming) {
    if (s.points.length === 0) continue;
    const i = at.get(seriesKey(s));
    if (i === undefined) {
      at.set(seriesKey(s), next.length);
      next.push(s);
    } else {
      const old = next[i]!;
      next[i] = { ...old, points: old.points.concat(s.points) };
    }
  }
  return next;
}

/**
 * One poll: each node's agent log from the seq after the one last read (`run.metrics`
 * reads a node from `fromSeq`, and its `lastSeq` is that node's: one call per node, so a
 * node that logs more never makes another skip lines). The nodes are read one after the
 * other; a failed read throws and leaves what is held as it was.
 */
export async function pollMetrics(
  held: HeldMetrics,
  nodes: readonly string[],
  read: ReadMetrics,
): Promise<HeldMetrics> {
  let series = held.series;
  const readTo = { ...held.readTo };
  let skipped = held.skipped;
  for (const node of nodes) {
    const from = (readTo[node] ?? 0) + 1;
    const out = await read(node, from);
    series = mergeSeries(series, out.series);
    skipped += out.skipped;
    readTo[node] = Math.max(readTo[node] ?? 0, out.lastSeq);
  }
  const same =
    series === held.series &&
    skipped === held.skipped &&
    nodes.every((n) => readTo[n] === held.readTo[n]);
  return same ? held : { series, readTo, skipped };
}
