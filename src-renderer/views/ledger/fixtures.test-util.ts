// Views for the ledger's unit tests: what status.get returns, with only what a test changes.
import type {
  LeaseView,
  NodeStage,
  NodeView,
  RunView,
  StatusView,
} from '../../../src-main/contract';
import { leaseView } from '../../../src-main/contract/lease-view.test-util';

export const T0 = 1_700_000_000_000;

export function lease(over: Partial<LeaseView> = {}): LeaseView {
  return leaseView({
    label: 'tender-i-r1-node-0',
    leaseId: 'vastai:100',
    createdAt: T0,
    ...over,
  });
}

export function node(stages: [NodeStage, number][], over: Partial<NodeView> = {}): NodeView {
  const last = stages[stages.length - 1]!;
  return {
    id: 'r-aaaaaa/node-0',
    runId: 'r-aaaaaa',
    logicalId: 'node-0',
    provider: 'vastai',
    stage: last[0],
    ready: false,
    bootstrapStage: null,
    leaseId: 'vastai:100',
    label: 'tender-i-r1-node-0',
    agentId: null,
    capabilities: null,
    failedReason: null,
    destroyReason: null,
    jobStatus: null,
    jobPhase: null,
    exitCode: null,
    linkState: 'none',
    updatedAt: last[1],
    stageSince: last[1],
    stages: stages.map(([stage, at]) => ({ stage, at })),
    deadlineAt: null,
    ...over,
  } as NodeView;
}

export function run(over: Partial<RunView> = {}): RunView {
  return {
    id: 'r-aaaaaa',
    jobName: 'train',
    provider: 'vastai',
    count: 1,
    status: 'running',
    detached: false,
    createdAt: T0,
    endedAt: null,
    failedReason: null,
    outputsDir: '/tmp/out',
    nodes: [],
    policy: null,
    cost: {
      accruedUsd: 0,
      burnUsdPerHour: 0,
      budgetUsd: null,
      budgetFraction: null,
      budgetWarning: false,
    },
    ...over,
  } as RunView;
}

export function status(over: Partial<StatusView> = {}): StatusView {
  return { runs: [], leases: [], orphans: [], unreachable: [], ...over };
}
