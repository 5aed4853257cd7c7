// What `tender metrics` prints: a small table per node (and per sweep cell), or CSV rows.
// Pure: series in, text out.
import type { MetricSeries } from '../../contract';

/** `node-0` of `<run>/node-0`. */
const logical = (nodeId: string) => nodeId.slice(nodeId.indexOf('/') + 1);

/** A value as a person reads it: integers whole, others to 6 significant digits. */
export function metricNumber(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
}

/** One block per node and cell: its heading (`node-0`, `node-0 j03`) and its table rows,
 *  headed METRIC, POINTS, LAST, MIN, MAX, LAST STEP. */
export function metricTables(
  series: readonly MetricSeries[],
): { heading: string; rows: string[][] }[] {
  const blocks = new Map<string, { heading: string; rows: string[][] }>();
  for (const s of series) {
    const heading = s.cellId === null ? logical(s.nodeId) : `${logical(s.nodeId)} ${s.cellId}`;
    let block = blocks.get(heading);
    if (!block) {
      block = { heading, rows: [['METRIC', 'POINTS', 'LAST', 'MIN', 'MAX', 'LAST STEP']] };
      blocks.set(heading, block);
    }
    const last = s.points.at(-1);
    if (!last) continue;
    let min = Infinity;
    let max = -Infinity;
    for (const [, y] of s.points) {
      if (y < min) min = y;
      if (y > max) max = y;
    }
    block.rows.push([
      s.name,
      String(s.points.length),
      metricNumber(last[1]),
      metricNumber(min),
      metricNumber(max),
      metricNumber(last[0]),
    ]);
  }
  return [...blocks.values()];
}

/** `node,job,step,metric,value` and one row per point (job empty outside a sweep). */
export function metricsCsv(series: readonly MetricSeries[]): string {
  let out = 'node,job,step,metric,value\n';
  for (const s of series) {
    const head = `${csvField(logical(s.nodeId))},${csvField(s.cellId ?? '')}`;
    const name = csvField(s.name);
    for (const [x, y] of s.points) out += `${head},${x},${name},${y}\n`;
  }
  return out;
}

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}
