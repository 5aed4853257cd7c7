import { describe, expect, it } from 'vitest';
import type { NodeGpu, NodeStage, NodeView } from '../../contract';
import { runView } from '../../contract/run-view.test-util';
import type { GpuSummaryFacts } from './gpu-samples';
import { runWithGpu, withGpu } from './view-builders';

const GPU: NodeGpu = {
  at: 0,
  gpus: [{ index: 0, util: 0, memUsedMiB: 4, memTotalMiB: 81_920 }],
  history: [],
  stale: false,
  stalled: true,
  lastLineAt: null,
};

function node(stage: NodeStage, over: Partial<NodeView> = {}): NodeView {
  return {
    id: 'r-abc123/node-0',
    runId: 'r-abc123',
    logicalId: 'node-0',
    provider: 'local',
    stage,
    ready: true,
    bootstrapStage: null,
    leaseId: null,
    label: null,
    agentId: null,
    capabilities: null,
    failedReason: null,
    destroyReason: null,
    jobStatus: 'running',
    jobPhase: 'run',
    exitCode: null,
    linkState: 'connected',
    updatedAt: 0,
    stageSince: 0,
    stages: [],
    deadlineAt: null,
    ...over,
  };
}

/** The lookup, recording what it was asked. */
function lookup() {
  const asked: GpuSummaryFacts[] = [];
  return { asked, of: (_id: string, f: GpuSummaryFacts) => (asked.push(f), GPU) };
}

describe('withGpu', () => {
  it.each<{ name: string; node: NodeView; facts: GpuSummaryFacts | null }>([
    { name: 'a running job', node: node('dormant'), facts: { isJobRunning: true, utilBelow: 5 } },
    {
      name: 'setup counts as running',
      node: node('handed_off', { jobPhase: 'setup' }),
      facts: { isJobRunning: true, utilBelow: 5 },
    },
    {
      name: 'collecting does not',
      node: node('dormant', { jobPhase: 'collecting' }),
      facts: { isJobRunning: false, utilBelow: 5 },
    },
    {
      name: 'a warm node after its job',
      node: node('dormant', { jobStatus: 'completed', jobPhase: 'done' }),
      facts: { isJobRunning: false, utilBelow: 5 },
    },
    { name: 'a destroyed node shows none', node: node('destroyed'), facts: null },
    { name: 'nor one still booting', node: node('bootstrap_running'), facts: null },
  ])('$name', ({ node: n, facts }) => {
    const l = lookup();
    const view = withGpu(n, null, l.of);
    expect(view.gpu).toEqual(facts ? GPU : null);
    expect(l.asked).toEqual(facts ? [facts] : []);
  });

  it("judges a run's nodes by its own idle_gpu_util_below", () => {
    const l = lookup();
    const base = runView({ nodes: [node('dormant')] });
    const run = runWithGpu({ ...base, policy: { ...policyOf(), idleGpuUtilBelow: 12 } }, l.of);
    expect(run.nodes[0]!.gpu).toEqual(GPU);
    expect(l.asked).toEqual([{ isJobRunning: true, utilBelow: 12 }]);
  });
});

function policyOf() {
  return {
    maxDurationMs: null,
    idleTimeoutMs: null,
    budgetUsd: null,
    afterJob: 'destroy' as const,
    unreachableGraceMs: 60_000,
  };
}
