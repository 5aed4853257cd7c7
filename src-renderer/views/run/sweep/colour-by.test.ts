import { describe, expect, it } from 'vitest';
import type { MetricSeries } from '../../../../src-main/contract';
import { colourAt } from '../metrics/palette';
import { cellCurves } from './cell-curves';
import { colourByParam, NO_VALUE, sweepParams } from './colour-by';
import { cellView } from './cell-view.test-util';

const cells = [
  cellView(0, { values: { LR: '3e-4', SEED: '1' } }),
  cellView(1, { values: { LR: '1e-4', SEED: '1' } }),
  cellView(2, { values: { LR: '3e-4', SEED: '2' } }),
  cellView(3, { values: { SEED: '9', EXTRA: 'x' } }),
];

describe('colourByParam', () => {
  it('same value, same colour; the legend in value order, numbers as numbers', () => {
    const g = colourByParam(cells, 'LR');
    expect(g.legend).toEqual([
      { value: '1e-4', colour: colourAt(0), count: 1 },
      { value: '3e-4', colour: colourAt(1), count: 2 },
      { value: NO_VALUE, colour: colourAt(2), count: 1 },
    ]);
    expect(g.colourOf.get('j0')).toBe(g.colourOf.get('j2'));
    expect(g.colourOf.get('j1')).toBe(colourAt(0));
    expect(g.colourOf.get('j3')).toBe(colourAt(2));
  });

  it('lists the params, the first cell’s order first', () => {
    expect(sweepParams(cells)).toEqual(['LR', 'SEED', 'EXTRA']);
  });
});

describe('cellCurves', () => {
  const s = (cellId: string | null, name: string, points: [number, number][]) =>
    ({ nodeId: 'r-1/node-0', cellId, name, points }) satisfies MetricSeries;

  it("one line per cell of the metric, in the sweep's order, in its group's colour", () => {
    const groups = colourByParam(cells, 'SEED');
    const lines = cellCurves(
      [
        s('j2', 'loss', [[1, 2]]),
        s('j0', 'loss', [[1, 1]]),
        s('j0', 'acc', [[1, 0.5]]),
        s(null, 'loss', [[1, 9]]),
      ],
      'loss',
      cells,
      groups,
    );
    expect(lines.map((l) => [l.label, l.colour, l.points])).toEqual([
      ['j0', colourAt(0), [[1, 1]]],
      ['j2', colourAt(1), [[1, 2]]],
    ]);
  });
});
