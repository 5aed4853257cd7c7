import type { CellView, MetricSeries } from '../../../../src-main/contract';
import type { ChartLine } from '../metrics/metric-lines';
import type { ColourGroups } from './colour-by';

/** One line per cell of `metric`, in the sweep's order, coloured by its group. A cell that
 *  ran on two nodes is one line; series without a cell id are left out. */
export function cellCurves(
  series: readonly MetricSeries[],
  metric: string,
  cells: readonly CellView[],
  groups: ColourGroups,
): ChartLine[] {
  const points = new Map<string, ChartLine['points']>();
  for (const s of series) {
    if (s.name !== metric || s.cellId === null) continue;
    const held = points.get(s.cellId);
    points.set(s.cellId, held ? held.concat(s.points) : s.points);
  }
  return cells
    .filter((c) => points.has(c.id))
    .map((c) => ({
      key: `cell:${c.id}`,
      label: c.id,
      colour: groups.colourOf.get(c.id) ?? '#9aa4b2',
      points: points.get(c.id)!,
    }));
}
