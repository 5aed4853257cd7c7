// The cell queue of a sweep in a real SQLite file: lowest index first, one take per cell,
// an end kept only while the cell is still the node's, a re-queue counted, the queue ended
// at once, counts by status, memoization keys.
import { afterEach, describe, expect, it } from 'vitest';
import { expandSweep, SweepSpec } from '../contract';
import { cleanUpLedgers, newRun, nodeRecord, RUN, T0, tempHome, writer } from './ledger.test-util';

afterEach(cleanUpLedgers);

function sweepLedger(n: number) {
  const ledger = writer(tempHome());
  const nodes = ['node-0', 'node-1'].map(nodeRecord);
  const cells = expandSweep(SweepSpec.parse({ axes: { K: Array.from({ length: n }, String) } }));
  ledger.createRun({ ...newRun(2), cells }, nodes, T0);
  return { ledger, a: nodes[0]!.id, b: nodes[1]!.id };
}

describe('the cell queue', () => {
  it('hands out the lowest queued cell once, and counts each start', () => {
    const { ledger, a, b } = sweepLedger(3);
    expect(ledger.cellSummary(RUN)).toMatchObject({ total: 3, queued: 3 });
    const first = ledger.takeCell(RUN, a, 11, T0 + 1)!;
    const second = ledger.takeCell(RUN, b, 5, T0 + 2)!;
    expect([first.id, first.nodeId, first.tries, first.seqFrom]).toEqual(['j0', a, 1, 11]);
    expect(second.id).toBe('j1');
    expect(ledger.endCell(RUN, 'j0', a, { status: 'queued', reason: 'lost' }, T0 + 3)).toBe(true);
    const again = ledger.takeCell(RUN, b, 20, T0 + 4)!;
    expect([again.id, again.tries, again.nodeId, again.reason]).toEqual(['j0', 2, b, null]);
    expect(ledger.takeCell(RUN, a, 1, T0 + 5)!.id).toBe('j2');
    expect(ledger.takeCell(RUN, a, 1, T0 + 6)).toBeNull();
    ledger.close();
  });

  it("keeps an end only while the cell is still that node's", () => {
    const { ledger, a, b } = sweepLedger(2);
    ledger.takeCell(RUN, a, 1, T0);
    expect(ledger.endCell(RUN, 'j0', b, { status: 'completed', exitCode: 0 }, T0 + 1)).toBe(false);
    expect(ledger.endCell(RUN, 'j0', a, { status: 'failed', exitCode: 3, seqTo: 9 }, T0 + 2)).toBe(
      true,
    );
    expect(ledger.endCell(RUN, 'j0', a, { status: 'completed', exitCode: 0 }, T0 + 3)).toBe(false);
    expect(ledger.getCell(RUN, 'j0')).toMatchObject({
      status: 'failed',
      exitCode: 3,
      seqTo: 9,
      endedAt: T0 + 2,
    });
    ledger.close();
  });

  it('cancels a queued cell, and ends the whole queue at once', () => {
    const { ledger, a } = sweepLedger(4);
    expect(ledger.cancelQueuedCell(RUN, 'j1', T0)).toBe(true);
    expect(ledger.cancelQueuedCell(RUN, 'j1', T0)).toBe(false);
    ledger.takeCell(RUN, a, 1, T0);
    expect(ledger.cancelQueuedCell(RUN, 'j0', T0)).toBe(false); // running: the node's to stop
    expect(ledger.endQueuedCells(RUN, 'failed', 'no node left to run it', T0 + 1)).toBe(2);
    expect(ledger.listCells(RUN).map((c) => [c.id, c.status])).toEqual([
      ['j0', 'running'],
      ['j1', 'cancelled'],
      ['j2', 'failed'],
      ['j3', 'failed'],
    ]);
    expect(ledger.cellSummary(RUN)).toEqual({
      total: 4,
      queued: 0,
      running: 1,
      completed: 0,
      failed: 2,
      cancelled: 1,
    });
    expect(ledger.journal(RUN).map((e) => e.kind)).toContain('cell.queue_ended');
    ledger.close();
  });

  it('finds a completed cell by its memoization key; hits are written completed', () => {
    const ledger = writer(tempHome());
    const nodes = [nodeRecord('node-0')];
    ledger.createRun(
      {
        ...newRun(1),
        cells: [
          { index: 0, id: 'j0', values: { K: '0' }, cacheKey: 'ck1_a' },
          {
            index: 1,
            id: 'j1',
            values: { K: '1' },
            cacheKey: 'ck1_b',
            cacheHit: { runId: 'r-old', jobId: 'j4' },
          },
        ],
      },
      nodes,
      T0,
    );
    expect(ledger.getCell(RUN, 'j1')).toMatchObject({
      status: 'completed',
      exitCode: 0,
      cacheHit: { runId: 'r-old', jobId: 'j4' },
    });
    expect(ledger.cellByCacheKey('ck1_a')).toBeUndefined(); // queued, not completed
    ledger.takeCell(RUN, nodes[0]!.id, 1, T0);
    ledger.endCell(RUN, 'j0', nodes[0]!.id, { status: 'completed', exitCode: 0 }, T0 + 1);
    expect(ledger.cellByCacheKey('ck1_a')).toMatchObject({ id: 'j0', cacheKey: 'ck1_a' });
    ledger.close();
  });
});
