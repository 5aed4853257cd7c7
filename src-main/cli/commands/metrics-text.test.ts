import { describe, expect, it } from 'vitest';
import type { MetricSeries } from '../../contract';
import { metricNumber, metricsCsv, metricTables } from './metrics-text';

const S: MetricSeries[] = [
  {
    nodeId: 'r-1/node-0',
    cellId: null,
    name: 'loss',
    points: [
      [10, 0.5],
      [20, 0.25],
      [30, 0.3],
    ],
  },
  { nodeId: 'r-1/node-0', cellId: null, name: 'lr', points: [[30, 3e-4]] },
  { nodeId: 'r-1/node-1', cellId: 'j01', name: 'a,"b"', points: [[1, 1234567]] },
];

describe('metricNumber', () => {
  it.each([
    [3, '3'],
    [1234567, '1234567'],
    [0.30000000000000004, '0.3'],
    [3e-4, '0.0003'],
    [1.23456789e-9, '1.23457e-9'],
    [-2.5, '-2.5'],
  ])('%s → %s', (v, text) => expect(metricNumber(v)).toBe(text));
});

describe('metricTables', () => {
  it('gives one table per node and job: points, last, min, max, last step', () => {
    expect(metricTables(S)).toEqual([
      {
        heading: 'node-0',
        rows: [
          ['METRIC', 'POINTS', 'LAST', 'MIN', 'MAX', 'LAST STEP'],
          ['loss', '3', '0.3', '0.25', '0.5', '30'],
          ['lr', '1', '0.0003', '0.0003', '0.0003', '30'],
        ],
      },
      {
        heading: 'node-1 j01',
        rows: [
          ['METRIC', 'POINTS', 'LAST', 'MIN', 'MAX', 'LAST STEP'],
          ['a,"b"', '1', '1234567', '1234567', '1234567', '1'],
        ],
      },
    ]);
  });
});

describe('metricsCsv', () => {
  it('writes node,job,step,metric,value rows, quoting where needed', () => {
    expect(metricsCsv(S)).toBe(
      [
        'node,job,step,metric,value',
        'node-0,,10,loss,0.5',
        'node-0,,20,loss,0.25',
        'node-0,,30,loss,0.3',
        'node-0,,30,lr,0.0003',
        'node-1,j01,1,"a,""b""",1234567',
        '',
      ].join('\n'),
    );
    expect(metricsCsv([])).toBe('node,job,step,metric,value\n');
  });
});
