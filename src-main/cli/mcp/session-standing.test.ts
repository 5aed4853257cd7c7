import { describe, expect, it } from 'vitest';
import type { NodeView } from '../../contract';
import { leaseView } from '../../contract/lease-view.test-util';
import { runView } from '../../contract/run-view.test-util';
import { runStanding } from './session-standing';

const H = 3_600_000;
const RUN = 'r-aaaaaa';
const started = { runId: RUN, priceCapPerHour: 0.4, maxDurationMs: 2 * H };

function node(name: string, over: Partial<NodeView> = {}): NodeView {
  return {
    id: `${RUN}/${name}`,
    runId: RUN,
    logicalId: name,
    provider: 'vastai',
    stage: 'new',
    ready: false,
    bootstrapStage: null,
    leaseId: null,
    label: null,
    agentId: null,
    capabilities: null,
    failedReason: null,
    destroyReason: null,
    jobStatus: 'pending',
    jobPhase: 'provisioning',
    exitCode: null,
    linkState: 'none',
    updatedAt: 0,
    stageSince: 0,
    stages: [],
    deadlineAt: null,
    ...over,
  };
}
const lease = (name: string, over: Parameters<typeof leaseView>[0] = {}) =>
  leaseView({ nodeId: `${RUN}/${name}`, label: `l-${name}`, leaseId: `vastai:${name}`, ...over });

describe("a session run's standing", () => {
  const cases: [
    string,
    Parameters<typeof runView>[0],
    ReturnType<typeof leaseView>[],
    { awaiting: number; leases: number; rate?: number; live: number },
  ][] = [
    [
      'a run just recorded: every node awaits a lease at the cap',
      { id: RUN, nodes: [node('node-0'), node('node-1')] },
      [],
      { awaiting: 2, leases: 0, live: 2 },
    ],
    [
      'a lease only requested is still to be created',
      { id: RUN, nodes: [node('node-0', { stage: 'lease_requested' })] },
      [lease('node-0', { state: 'requested', createdAt: null })],
      { awaiting: 1, leases: 0, live: 1 },
    ],
    [
      'a created lease bills at its current rate',
      { id: RUN, nodes: [node('node-0', { stage: 'handed_off', jobStatus: 'running' })] },
      [lease('node-0', { pricePerHour: 0.3, rates: [{ from: 5, perHour: 0.35 }] })],
      { awaiting: 0, leases: 1, rate: 0.35, live: 1 },
    ],
    [
      'a lease being destroyed still bills',
      {
        id: RUN,
        status: 'completed',
        nodes: [
          node('node-0', { stage: 'destroying', jobStatus: 'completed', jobPhase: 'tearing_down' }),
        ],
      },
      [lease('node-0', { state: 'destroying' })],
      { awaiting: 0, leases: 1, live: 1 },
    ],
    [
      'a node whose failed boot was destroyed, in a run still going, may rent again',
      { id: RUN, nodes: [node('node-0', { stage: 'destroyed' })] },
      [lease('node-0', { state: 'destroyed' })],
      { awaiting: 1, leases: 0, live: 1 },
    ],
    [
      'an ended run holds nothing',
      {
        id: RUN,
        status: 'completed',
        nodes: [node('node-0', { stage: 'destroyed', jobStatus: 'completed', jobPhase: 'done' })],
      },
      [lease('node-0', { state: 'destroyed' })],
      { awaiting: 0, leases: 0, live: 0 },
    ],
    [
      'a node whose job ended, in a run whose other node still works',
      {
        id: RUN,
        nodes: [
          node('node-0', { stage: 'destroyed', jobStatus: 'completed', jobPhase: 'done' }),
          node('node-1', { stage: 'handed_off', jobStatus: 'running' }),
        ],
      },
      [lease('node-0', { state: 'destroyed' }), lease('node-1')],
      { awaiting: 0, leases: 1, live: 1 },
    ],
    [
      "another run's leases are not this run's",
      { id: RUN, status: 'completed', nodes: [] },
      [lease('node-0', { runId: 'r-other1', nodeId: 'r-other1/node-0' })],
      { awaiting: 0, leases: 0, live: 0 },
    ],
  ];
  it.each(cases)('%s', (_name, view, leases, expected) => {
    const s = runStanding(started, runView(view), leases);
    expect(s.commitment.nodesAwaitingLease).toBe(expected.awaiting);
    expect(s.commitment.liveLeases).toHaveLength(expected.leases);
    if (expected.rate !== undefined)
      expect(s.commitment.liveLeases[0]?.ratePerHour).toBe(expected.rate);
    expect(s.liveNodes).toBe(expected.live);
    expect(s.commitment.priceCapPerHour).toBe(0.4);
  });

  it("takes the run's max duration from its policy", () => {
    const policy = {
      maxDurationMs: 5 * H,
      idleTimeoutMs: null,
      budgetUsd: 2,
      afterJob: 'destroy' as const,
      unreachableGraceMs: 60_000,
    };
    expect(runStanding(started, runView({ id: RUN, policy }), []).commitment.maxDurationMs).toBe(
      5 * H,
    );
    expect(runStanding(started, runView({ id: RUN }), []).commitment.maxDurationMs).toBe(2 * H);
  });
});
