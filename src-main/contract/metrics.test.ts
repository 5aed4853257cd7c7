import { describe, expect, it } from 'vitest';
import { metricSeries, type MetricSeries, type MetricsRecord } from './metrics';

const N0 = 'r-1/node-0';
const N1 = 'r-1/node-1';

/** Records of one node from lines, seqs 1, 2, … */
const lines = (node: string, ...ls: string[]): MetricsRecord[] =>
  ls.map((line, i) => ({ node, seq: i + 1, line }));

const series = (
  name: string,
  points: [number, number][],
  nodeId = N0,
  cellId: string | null = null,
): MetricSeries => ({ nodeId, cellId, name, points });

describe('metricSeries', () => {
  it.each<[string, MetricsRecord[], MetricSeries[], number]>([
    ['nothing', [], [], 0],
    [
      'x is step; every other finite number is a metric',
      lines(N0, '{"step":10,"loss":0.31,"lr":3e-4}', '{"step":20,"loss":0.25,"lr":3e-4}'),
      [
        series('loss', [
          [10, 0.31],
          [20, 0.25],
        ]),
        series('lr', [
          [10, 3e-4],
          [20, 3e-4],
        ]),
      ],
      0,
    ],
    [
      'x is epoch without a step, and epoch is a metric when step is the x',
      lines(N0, '{"epoch":1,"acc":0.5}', '{"step":7,"epoch":2,"acc":0.6}'),
      [
        series('acc', [
          [1, 0.5],
          [7, 0.6],
        ]),
        series('epoch', [[7, 2]]),
      ],
      0,
    ],
    [
      'x is the line index without step or epoch (a step that is no number does not count)',
      lines(N0, '{"loss":3}', '{"loss":2,"step":"x"}', '{"note":"warmup"}', '{"loss":1}'),
      [
        series('loss', [
          [0, 3],
          [1, 2],
          [3, 1],
        ]),
      ],
      0,
    ],
    [
      'strings, booleans, null, nested objects and arrays are no metric',
      lines(N0, '{"step":1,"tag":"a","ok":true,"none":null,"sub":{"x":1},"v":[1],"loss":0.5}'),
      [series('loss', [[1, 0.5]])],
      0,
    ],
    [
      'lines that are no JSON object are skipped, never thrown',
      lines(
        N0,
        'epoch 1 loss 0.4',
        '[1,2]',
        '42',
        '"text"',
        'null',
        '{"step":1,"lo',
        '{"step":2,"loss":1}',
      ),
      [series('loss', [[2, 1]])],
      6,
    ],
    [
      'by node in the order first seen, each with its own line index',
      [
        { node: N1, seq: 5, line: '{"loss":9}' },
        { node: N0, seq: 3, line: '{"loss":1}' },
        { node: N1, seq: 6, line: '{"loss":8,"gpu_mem":3}' },
        { node: N0, seq: 4, line: '{"loss":0.5}' },
      ],
      [
        series(
          'loss',
          [
            [0, 9],
            [1, 8],
          ],
          N1,
        ),
        series('gpu_mem', [[1, 3]], N1),
        series('loss', [
          [0, 1],
          [1, 0.5],
        ]),
      ],
      0,
    ],
    [
      'points keep the order read, repeated steps included (a resumed attempt)',
      lines(N0, '{"step":2,"loss":1}', '{"step":1,"loss":2}', '{"step":2,"loss":3}'),
      [
        series('loss', [
          [2, 1],
          [1, 2],
          [2, 3],
        ]),
      ],
      0,
    ],
  ])('%s', (_name, records, expected, skipped) => {
    expect(metricSeries(records)).toEqual({ series: expected, skipped });
  });

  it('attributes records to sweep cells through cellOf, one line index per cell', () => {
    const records = lines(N0, '{"loss":1}', '{"loss":2}', '{"loss":3}', '{"loss":4}');
    const cellOf = (node: string, seq: number) => (node === N0 && seq <= 2 ? 'j00' : 'j01');
    expect(metricSeries(records, cellOf).series).toEqual([
      series(
        'loss',
        [
          [0, 1],
          [1, 2],
        ],
        N0,
        'j00',
      ),
      series(
        'loss',
        [
          [0, 3],
          [1, 4],
        ],
        N0,
        'j01',
      ),
    ]);
  });
});
