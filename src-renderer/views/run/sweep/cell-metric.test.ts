import { describe, expect, it } from 'vitest';
import type { MetricSeries } from '../../../../src-main/contract';
import { cellMetricNames, cellScores, defaultDirection } from './cell-metric';

const s = (cellId: string | null, name: string, points: [number, number][], node = 'node-0') =>
  ({ nodeId: `r-1/${node}`, cellId, name, points }) satisfies MetricSeries;

const SERIES = [
  s('j0', 'loss', [
    [1, 0.9],
    [2, 0.3],
    [3, 0.4],
  ]),
  s('j0', 'acc', [
    [1, 0.1],
    [3, 0.7],
  ]),
  s('j1', 'loss', [[1, 0.8]], 'node-1'),
  s(null, 'loss', [[1, 0.01]]),
];

describe('cellScores', () => {
  it('last is the newest point, best the least for min', () => {
    expect(cellScores(SERIES, 'loss', 'min')).toEqual(
      new Map([
        ['j0', { last: 0.4, best: 0.3 }],
        ['j1', { last: 0.8, best: 0.8 }],
      ]),
    );
  });

  it('best is the greatest for max; a cell without the metric has no score', () => {
    const acc = cellScores(SERIES, 'acc', 'max');
    expect(acc.get('j0')).toEqual({ last: 0.7, best: 0.7 });
    expect(acc.has('j1')).toBe(false);
    expect(cellScores(SERIES, 'loss', 'max').get('j0')).toEqual({ last: 0.4, best: 0.9 });
  });

  it('a cell that ran on two nodes: its points over both, the later series last', () => {
    const twice = [s('j2', 'loss', [[1, 0.5]], 'node-0'), s('j2', 'loss', [[1, 0.6]], 'node-1')];
    expect(cellScores(twice, 'loss', 'min').get('j2')).toEqual({ last: 0.6, best: 0.5 });
  });
});

describe('defaultDirection and cellMetricNames', () => {
  it.each([
    ['loss', 'min'],
    ['val_loss', 'min'],
    ['error_rate', 'min'],
    ['top1_err', 'min'],
    ['acc', 'max'],
    ['reward', 'max'],
  ])('%s gets better to the %s', (name, dir) => {
    expect(defaultDirection(name)).toBe(dir);
  });

  it('lists the metrics of cells, first seen first (series of no cell left out)', () => {
    expect(cellMetricNames([s(null, 'lr', [[1, 1]]), ...SERIES])).toEqual(['loss', 'acc']);
  });
});
