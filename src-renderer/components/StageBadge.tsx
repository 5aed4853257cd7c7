import type { JobStatus, LeaseState, NodeStage } from '../../src-main/contract';

const STAGE_LABEL: Record<NodeStage, string> = {
  new: 'New',
  lease_requested: 'Lease requested',
  lease_created: 'Lease created',
  endpoint_known: 'Endpoint known',
  bootstrap_running: 'Bootstrapping',
  agent_joined: 'Agent joined',
  handed_off: 'Handed off',
  dormant: 'Dormant',
  failed: 'Failed',
  destroying: 'Destroying',
  destroyed: 'Destroyed',
  released: 'Passed to a later run',
};

const STAGE_COLOUR: Record<NodeStage, string> = {
  new: 'grey',
  lease_requested: 'amber',
  lease_created: 'amber',
  endpoint_known: 'amber',
  bootstrap_running: 'amber',
  agent_joined: 'blue',
  handed_off: 'green',
  dormant: 'blue',
  failed: 'red',
  destroying: 'amber',
  destroyed: 'grey',
  released: 'grey',
};

export function stageLabel(stage: NodeStage): string {
  return STAGE_LABEL[stage];
}

export function StageBadge({ stage }: { stage: NodeStage }): React.JSX.Element {
  return (
    <span className={`badge ${STAGE_COLOUR[stage]}`} data-stage={stage}>
      {STAGE_LABEL[stage]}
    </span>
  );
}

const LEASE_COLOUR: Record<LeaseState, string> = {
  requested: 'amber',
  created: 'green',
  destroying: 'amber',
  destroyed: 'grey',
  lost: 'red',
  not_created: 'grey',
};

export function LeaseBadge({ state }: { state: LeaseState }): React.JSX.Element {
  return (
    <span className={`badge ${LEASE_COLOUR[state]}`} data-lease-state={state}>
      {state.replace('_', ' ')}
    </span>
  );
}

const JOB_COLOUR: Record<JobStatus, string> = {
  pending: 'grey',
  running: 'blue',
  completed: 'green',
  failed: 'red',
  cancelled: 'amber', // stopped by its user: not a failure
};

export function JobBadge({ status }: { status: JobStatus }): React.JSX.Element {
  return (
    <span className={`badge ${JOB_COLOUR[status]}`} data-job-status={status}>
      {status}
    </span>
  );
}
