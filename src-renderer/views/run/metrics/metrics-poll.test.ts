import { describe, expect, it } from 'vitest';
import type { CommandOutput, MetricSeries } from '../../../../src-main/contract';
import { mergeSeries, NO_METRICS, pollMetrics, type ReadMetrics } from './metrics-poll';

const s = (node: string, name: string, points: [number, number][], cellId: string | null = null) =>
  ({ nodeId: `r-1/${node}`, cellId, name, points }) satisfies MetricSeries;

describe('mergeSeries', () => {
  it('appends to a known series (a new object), adds a new one last, keeps the rest', () => {
    const loss0 = s('node-0', 'loss', [[1, 0.5]]);
    const loss1 = s('node-1', 'loss', [[1, 0.7]]);
    const next = mergeSeries(
      [loss0, loss1],
      [s('node-0', 'loss', [[2, 0.4]]), s('node-0', 'acc', [[2, 0.1]])],
    );
    expect(next).toEqual([
      s('node-0', 'loss', [
        [1, 0.5],
        [2, 0.4],
      ]),
      loss1,
      s('node-0', 'acc', [[2, 0.1]]),
    ]);
    expect(next[1]).toBe(loss1);
    expect(loss0.points).toEqual([[1, 0.5]]);
  });

  it('tells the cells of one node apart', () => {
    const next = mergeSeries(
      [s('node-0', 'loss', [[1, 1]], 'j0')],
      [s('node-0', 'loss', [[1, 2]], 'j2')],
    );
    expect(next.map((x) => [x.cellId, x.points])).toEqual([
      ['j0', [[1, 1]]],
      ['j2', [[1, 2]]],
    ]);
  });

  it('returns what is held when nothing came', () => {
    const held = [s('node-0', 'loss', [[1, 1]])];
    expect(mergeSeries(held, [])).toBe(held);
    expect(mergeSeries(held, [s('node-0', 'loss', [])])).toEqual(held);
  });
});

describe('pollMetrics', () => {
  /** node → its answers, one per call. */
  function reader(answers: Record<string, CommandOutput<'run.metrics'>[]>) {
    const calls: [string, number][] = [];
    const read: ReadMetrics = async (node, from) => {
      calls.push([node, from]);
      return answers[node]!.shift() ?? { series: [], skipped: 0, lastSeq: from - 1 };
    };
    return { read, calls };
  }

  it('reads each node from the seq after its own last one', async () => {
    const { read, calls } = reader({
      'node-0': [
        { series: [s('node-0', 'loss', [[1, 0.5]])], skipped: 1, lastSeq: 40 },
        { series: [s('node-0', 'loss', [[2, 0.4]])], skipped: 0, lastSeq: 55 },
      ],
      'node-1': [{ series: [], skipped: 0, lastSeq: 3 }],
    });
    const first = await pollMetrics(NO_METRICS, ['node-0', 'node-1'], read);
    expect(first.readTo).toEqual({ 'node-0': 40, 'node-1': 3 });
    const second = await pollMetrics(first, ['node-0', 'node-1'], read);
    expect(calls).toEqual([
      ['node-0', 1],
      ['node-1', 1],
      ['node-0', 41],
      ['node-1', 4],
    ]);
    expect(second.series).toEqual([
      s('node-0', 'loss', [
        [1, 0.5],
        [2, 0.4],
      ]),
    ]);
    expect(second.skipped).toBe(1);
    expect(second.readTo).toEqual({ 'node-0': 55, 'node-1': 3 });
  });

  it('a poll that found nothing new returns what is held (no new render)', async () => {
    const held = { series: [s('node-0', 'loss', [[1, 1]])], readTo: { 'node-0': 9 }, skipped: 0 };
    const { read } = reader({ 'node-0': [] });
    expect(await pollMetrics(held, ['node-0'], read)).toBe(held);
  });

  it('a failed read throws, leaving what is held as it was', async () => {
    const held = { series: [], readTo: { 'node-0': 9 }, skipped: 0 };
    const read: ReadMetrics = async () => {
      throw new Error('socket closed');
    };
    await expect(pollMetrics(held, ['node-0'], read)).rejects.toThrow('socket closed');
    expect(held.readTo).toEqual({ 'node-0': 9 });
  });
});
