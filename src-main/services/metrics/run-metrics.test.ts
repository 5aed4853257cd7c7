import { describe, expect, it } from 'vitest';
import type { LogRecord, LogSource } from '../../contract';
import type { NodeRecord } from '../../ledger/node-record';
import type { RunRow } from '../../ledger/rows';
import { readRunMetrics, type MetricsDeps } from './run-metrics';

const rec = (node: string, seq: number, source: LogSource, line: string): LogRecord => ({
  run: 'r-1',
  node: `r-1/${node}`,
  channel: 'agent',
  source,
  stream: source === 'metrics' ? 'stdout' : 'info',
  seq,
  ts: seq,
  line,
});

/** A run `r-1` with the given nodes, whose agent channels hold `records`. */
function deps(records: LogRecord[], nodes = ['node-0', 'node-1']): MetricsDeps & { reads: number } {
  const d = {
    reads: 0,
    ledger: {
      getRun: (id: string) => (id === 'r-1' ? ({ id } as RunRow) : undefined),
      // A replaced node has two records of one logical node: read once.
      nodesOfRun: () =>
        [...nodes, nodes[0]!].map((l) => ({ id: `r-1/${l}`, logicalId: l }) as NodeRecord),
    },
    datastream: {
      read: async (_run: string, o: { nodeId?: string; fromSeq: number; limit: number }) => {
        d.reads++;
        return records.filter((r) => r.node === o.nodeId && r.seq >= o.fromSeq).slice(0, o.limit);
      },
    },
  };
  return d;
}

const LOG = [
  rec('node-0', 1, 'agent', 'run started'),
  rec('node-0', 2, 'run', '{"step":99,"loss":9}'), // the job's output, even when it is JSON
  rec('node-0', 3, 'metrics', '{"step":1,"loss":0.5}'),
  rec('node-0', 4, 'gpu', '{"t":1,"gpus":[]}'),
  rec('node-0', 5, 'metrics', 'not json'),
  rec('node-0', 6, 'metrics', '{"step":2,"loss":0.4}'),
  rec('node-0', 7, 'agent', 'run exited with code 0'),
  rec('node-1', 1, 'metrics', '{"step":1,"acc":0.9}'),
];

describe('readRunMetrics', () => {
  it("reads every node's metrics records into series, with the highest seq read", async () => {
    const out = await readRunMetrics(deps(LOG), { runId: 'r-1', fromSeq: 1 });
    expect(out).toEqual({
      series: [
        {
          nodeId: 'r-1/node-0',
          cellId: null,
          name: 'loss',
          points: [
            [1, 0.5],
            [2, 0.4],
          ],
        },
        { nodeId: 'r-1/node-1', cellId: null, name: 'acc', points: [[1, 0.9]] },
      ],
      skipped: 1,
      lastSeq: 7,
    });
  });

  it('reads one node from a seq on, and says where to go on from', async () => {
    const d = deps(LOG);
    const out = await readRunMetrics(d, { runId: 'r-1', nodeName: 'node-0', fromSeq: 6 });
    expect(out.series.map((s) => s.points)).toEqual([[[2, 0.4]]]);
    expect(out.lastSeq).toBe(7);
    const none = await readRunMetrics(d, { runId: 'r-1', nodeName: 'r-1/node-0', fromSeq: 8 });
    expect(none).toEqual({ series: [], skipped: 0, lastSeq: 7 });
  });

  it('narrows to a sweep cell through cellsOf', async () => {
    const d = deps(LOG);
    d.cellsOf = () => (node, seq) => (node === 'r-1/node-0' && seq < 5 ? 'j00' : 'j01');
    const out = await readRunMetrics(d, { runId: 'r-1', cellId: 'j01', fromSeq: 1 });
    expect(out.series.map((s) => [s.nodeId, s.cellId, s.name, s.points])).toEqual([
      ['r-1/node-0', 'j01', 'loss', [[2, 0.4]]],
      ['r-1/node-1', 'j01', 'acc', [[1, 0.9]]],
    ]);
    expect(out.skipped).toBe(1); // j01's line 5
  });

  it('pages through a long log', async () => {
    const long = Array.from({ length: 45_000 }, (_, i) =>
      rec('node-0', i + 1, 'metrics', `{"step":${i},"loss":1}`),
    );
    const d = deps(long, ['node-0']);
    const out = await readRunMetrics(d, { runId: 'r-1', fromSeq: 1 });
    expect(out.series[0]!.points).toHaveLength(45_000);
    expect(out.lastSeq).toBe(45_000);
    expect(d.reads).toBe(3);
  });

  it('names an unknown run or node', async () => {
    await expect(readRunMetrics(deps(LOG), { runId: 'r-2', fromSeq: 1 })).rejects.toMatchObject({
      code: 'not_found',
      message: 'no run r-2',
    });
    await expect(
      readRunMetrics(deps(LOG), { runId: 'r-1', nodeName: 'node-7', fromSeq: 1 }),
    ).rejects.toMatchObject({ code: 'not_found', hint: 'nodes: node-0, node-1' });
  });
});
