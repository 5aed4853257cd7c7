import { describe, expect, it } from 'vitest';
import type { MetricSeries } from '../../../../src-main/contract';
import { formatValue } from './chart-options';
import { metricCharts } from './metric-lines';
import { colourAt } from './palette';

const s = (node: string, name: string, points: [number, number][], cellId: string | null = null) =>
  ({ nodeId: `r-1/${node}`, cellId, name, points }) satisfies MetricSeries;

describe('metricCharts', () => {
  it('one chart per metric in first-seen order, one line per node, same colour in each', () => {
    const charts = metricCharts([
      s('node-1', 'loss', [[1, 0.7]]),
      s('node-1', 'acc', [[1, 0.2]]),
      s('node-0', 'loss', [[1, 0.5]]),
    ]);
    expect(charts.map((c) => [c.name, c.lines.map((l) => [l.label, l.colour])])).toEqual([
      [
        'loss',
        [
          ['node-0', colourAt(0)],
          ['node-1', colourAt(1)],
        ],
      ],
      ['acc', [['node-1', colourAt(1)]]],
    ]);
  });

  it("in a sweep, a line per cell (one that ran on two nodes is one line), cells' ids in order", () => {
    const charts = metricCharts([
      s('node-0', 'loss', [[1, 1]], 'j10'),
      s('node-1', 'loss', [[1, 2]], 'j2'),
      s('node-1', 'loss', [[2, 3]], 'j10'),
      s('node-0', 'loss', [[5, 5]]),
    ]);
    expect(charts[0]!.lines.map((l) => [l.key, l.label, l.points])).toEqual([
      ['cell:j2', 'j2', [[1, 2]]],
      [
        'cell:j10',
        'j10',
        [
          [1, 1],
          [2, 3],
        ],
      ],
      ['node:r-1/node-0', 'node-0', [[5, 5]]],
    ]);
  });

  it('a line of one series keeps its points array (a chart sees no change when none came)', () => {
    const loss = s('node-0', 'loss', [[1, 1]]);
    expect(metricCharts([loss])[0]!.lines[0]!.points).toBe(loss.points);
  });
});

describe('formatValue', () => {
  it.each([
    [0.000312, '0.000312'],
    [0.1 + 0.2, '0.3'],
    [12345, '12,345'],
    [1.23e-7, '1.23e-7'],
    [2.5e9, '2.50e+9'],
    [0, '0'],
    [null, '—'],
  ])('%s → %s', (v, text) => {
    expect(formatValue(v)).toBe(text);
  });
});
