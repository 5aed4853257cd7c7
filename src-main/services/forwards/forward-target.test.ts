import { describe, expect, it } from 'vitest';
import type { JobStatus, NodeStage } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';
import type { RunRow } from '../../ledger/rows';
import { bareRecordIn, endpoint } from '../../nodes/node-fixtures';
import { forwardTarget, nodeKeyOf } from './forward-target';

const RUN = 'r-test01';

function ledger(status: JobStatus, stages: NodeStage[]) {
  const nodes: NodeRecord[] = stages.map((stage, i) => ({
    ...bareRecordIn(stage, stage === 'new' ? {} : { connection: endpoint }),
    id: `${RUN}/node-${i}`,
    logicalId: `node-${i}`,
  }));
  return {
    getRun: (id: string) => (id === RUN ? ({ id, status } as RunRow) : undefined),
    getNode: (id: string) => nodes.find((n) => n.id === id),
    // As the ledger lists them: not necessarily in logical order.
    nodesOfRun: (id: string) => (id === RUN ? [...nodes].reverse() : []),
  } satisfies Pick<Ledger, 'getRun' | 'getNode' | 'nodesOfRun'>;
}

describe('nodeKeyOf', () => {
  const l = ledger('running', Array(11).fill('handed_off'));
  it.each([
    [undefined, `${RUN}/node-0`],
    ['node-1', `${RUN}/node-1`],
    ['10', `${RUN}/node-10`],
    [`${RUN}/node-2`, `${RUN}/node-2`],
    ['node-11', null],
    ['r-other/node-1', null],
  ])('%s → %s', (node, key) => {
    expect(nodeKeyOf(l, RUN, node)).toBe(key);
  });
});

describe('forwardTarget', () => {
  it('answers a reachable node', () => {
    expect(forwardTarget(ledger('running', ['handed_off']), RUN, undefined).id).toBe(
      `${RUN}/node-0`,
    );
    expect(forwardTarget(ledger('running', ['new', 'dormant']), RUN, '1').id).toBe(`${RUN}/node-1`);
  });

  it.each([
    ['r-nope', 'running', ['handed_off'], undefined, 'not_found', 'no run r-nope'],
    [RUN, 'completed', ['dormant'], undefined, 'bad_input', 'has ended (completed)'],
    [RUN, 'cancelled', ['destroyed'], undefined, 'bad_input', 'has ended (cancelled)'],
    [RUN, 'running', ['handed_off'], '3', 'bad_input', `run ${RUN} has no node 3`],
    [RUN, 'running', ['bootstrap_running'], undefined, 'conflict', 'once its agent has joined'],
    [RUN, 'running', ['new'], undefined, 'conflict', 'node-0 of r-test01 is new'],
    [RUN, 'pending', ['destroying'], undefined, 'conflict', 'is destroying'],
  ] as const)('%s %s %j node %s → %s', (runId, status, stages, node, code, message) => {
    expect(() => forwardTarget(ledger(status, [...stages]), runId, node)).toThrow(
      expect.objectContaining({ code, message: expect.stringContaining(message) }),
    );
  });
});
