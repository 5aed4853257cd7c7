import type { CellView } from '../../../../src-main/contract';
import { colourAt } from '../metrics/palette';
import { compareValues } from './cell-sort';

/** What a cell that lacks the param (an explicit cell without it) is shown as. */
export const NO_VALUE = '—';

export interface ColourGroups {
  /** Each distinct value once, in value order (numbers as numbers), with its colour and
   *  how many cells have it: the legend. */
  legend: { value: string; colour: string; count: number }[];
  /** Cell id → its value's colour. */
  colourOf: Map<string, string>;
}

/** Colours by one param: cells with the same value share a colour. */
export function colourByParam(cells: readonly CellView[], param: string): ColourGroups {
  const valueOf = (c: CellView) => c.values[param] ?? NO_VALUE;
  const counts = new Map<string, number>();
  for (const c of cells) counts.set(valueOf(c), (counts.get(valueOf(c)) ?? 0) + 1);
  const values = [...counts.keys()].sort((a, b) =>
    a === NO_VALUE ? 1 : b === NO_VALUE ? -1 : compareValues(a, b),
  );
  const colour = new Map(values.map((v, i) => [v, colourAt(i)]));
  return {
    legend: values.map((value) => ({
      value,
      colour: colour.get(value)!,
      count: counts.get(value)!,
    })),
    colourOf: new Map(cells.map((c) => [c.id, colour.get(valueOf(c))!])),
  };
}

/** The params of a sweep's cells, in the order the first cell lists them, then any others. */
export function sweepParams(cells: readonly CellView[]): string[] {
  const names = new Set<string>();
  for (const c of cells) for (const k of Object.keys(c.values)) names.add(k);
  return [...names];
}
