import type { JobPhase, JobStatus, NodeStage } from '../../src-main/contract';

/** What a node's badge says. `dormant` is the NodeManager's word for "handed to its job": the
 *  node is doing whatever its job does, so the badge says that, and "Idle" once the job is
 *  over (a kept node waiting for the next run). Other stages keep their own words. */
export interface NodeBadge {
  label: string;
  colour: 'grey' | 'amber' | 'blue' | 'green' | 'red';
}

const PHASE_LABEL: Partial<Record<JobPhase, string>> = {
  provisioning: 'Starting job',
  materializing: 'Receiving workspace',
  setup: 'Setting up',
  run: 'Running job',
  collecting: 'Collecting outputs',
  tearing_down: 'Tearing down',
};

const STAGE: Record<NodeStage, NodeBadge> = {
  new: { label: 'New', colour: 'grey' },
  lease_requested: { label: 'Lease requested', colour: 'amber' },
  lease_created: { label: 'Lease created', colour: 'amber' },
  endpoint_known: { label: 'Endpoint known', colour: 'amber' },
  bootstrap_running: { label: 'Bootstrapping', colour: 'amber' },
  agent_joined: { label: 'Agent joined', colour: 'blue' },
  handed_off: { label: 'Handed off', colour: 'green' },
  dormant: { label: 'Idle', colour: 'blue' },
  failed: { label: 'Failed', colour: 'red' },
  destroying: { label: 'Destroying', colour: 'amber' },
  destroyed: { label: 'Destroyed', colour: 'grey' },
  released: { label: 'Passed to a later run', colour: 'grey' },
};

export function stageLabel(stage: NodeStage): string {
  return STAGE[stage].label;
}

export function nodeBadge(node: {
  stage: NodeStage;
  jobStatus?: JobStatus | null;
  jobPhase?: JobPhase | null;
}): NodeBadge {
  const isJobActive = node.jobStatus === 'running' || node.jobStatus === 'pending';
  if (node.stage === 'dormant' && isJobActive) {
    const label = (node.jobPhase && PHASE_LABEL[node.jobPhase]) ?? 'Running job';
    return { label, colour: 'green' };
  }
  return STAGE[node.stage];
}
