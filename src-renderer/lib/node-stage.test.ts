import { describe, expect, it } from 'vitest';
import type { JobPhase, JobStatus, NodeStage } from '../../src-main/contract';
import { nodeBadge } from './node-stage';

describe('a node’s badge', () => {
  it.each<[NodeStage, JobStatus | null, JobPhase | null, string]>([
    ['dormant', 'running', 'run', 'Running job'],
    ['dormant', 'running', 'setup', 'Setting up'],
    ['dormant', 'running', 'materializing', 'Receiving workspace'],
    ['dormant', 'running', 'collecting', 'Collecting outputs'],
    ['dormant', 'running', null, 'Running job'],
    ['dormant', 'pending', 'provisioning', 'Starting job'],
    ['dormant', 'completed', 'done', 'Idle'],
    ['dormant', 'failed', 'done', 'Idle'],
    ['dormant', null, null, 'Idle'],
    ['bootstrap_running', 'running', 'provisioning', 'Bootstrapping'],
    ['lease_created', 'pending', 'provisioning', 'Lease created'],
    ['destroyed', 'completed', 'done', 'Destroyed'],
    ['released', 'completed', 'done', 'Passed to a later run'],
  ])('%s with its job %s (%s): %s', (stage, jobStatus, jobPhase, label) => {
    expect(nodeBadge({ stage, jobStatus, jobPhase }).label).toBe(label);
  });

  it('never calls a node running its job dormant', () => {
    for (const phase of ['provisioning', 'materializing', 'setup', 'run', 'collecting'] as const)
      expect(
        nodeBadge({ stage: 'dormant', jobStatus: 'running', jobPhase: phase }).label,
      ).not.toMatch(/dormant|idle/i);
  });
});
