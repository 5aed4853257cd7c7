import type { JobPhase, JobStatus, LeaseState, NodeStage } from '../../src-main/contract';
import { nodeBadge, stageLabel } from '../lib/node-stage';

export { stageLabel };

/** A node's stage, in words that say what it does (lib/node-stage.ts): given its job's
 *  status and phase, a node handed to its job says "Running job", not "Dormant". */
export function StageBadge(props: {
  stage: NodeStage;
  jobStatus?: JobStatus | null;
  jobPhase?: JobPhase | null;
}): React.JSX.Element {
  const badge = nodeBadge(props);
  return (
    <span className={`badge ${badge.colour}`} data-stage={props.stage} data-testid="stage-badge">
      {badge.label}
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
