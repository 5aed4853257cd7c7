import { z } from 'zod';

/** The stages a healthy node walks through, in order: new → … → dormant. */
export const NODE_MAIN_PATH = [
  'new',
  'lease_requested',
  'lease_created',
  'endpoint_known',
  'bootstrap_running',
  'agent_joined',
  'handed_off',
  'dormant',
] as const;

/** Stages a node leaves the main path for: `failed`, and `destroying` (between the destroy
 *  call and the provider's confirmation) then `destroyed`; `released`: a warm node whose
 *  lease a later run claimed (that run's node holds the lease now; this one's part is over). */
export const NODE_OFF_PATH = ['failed', 'destroying', 'destroyed', 'released'] as const;

/** NodeManager stages. */
export const NodeStage = z.enum([...NODE_MAIN_PATH, ...NODE_OFF_PATH]);
export type NodeStage = z.infer<typeof NodeStage>;

/** The finer stages of a bootstrap session (nodes/bootstrap-session.ts), up to the agent's
 *  join and the session's close. */
export const BootstrapStage = z.enum([
  'created',
  'ssh_connecting',
  'ssh_ready',
  'stdout_streaming',
  'boot_checking',
  'agent_starting',
  'waiting_for_agent_join',
  'converged',
  'closed',
  // failure stages
  'ssh_timeout',
  'boot_check_failed',
  'start_failed',
  'join_timeout',
  'stream_error',
  'cancelled',
]);
export type BootstrapStage = z.infer<typeof BootstrapStage>;

/** Job lifecycle: pending → running → completed | failed | cancelled (jobs/fsm/job-fsm.ts). */
/** `cancelled`: stopped by its user (outputs collected, nodes torn down) — not a failure.
 *  A stop by policy (budget, max duration) or a lost node is `failed`, with the reason. */
export const JobStatus = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']);
export type JobStatus = z.infer<typeof JobStatus>;

/** Where a running job is within its lifecycle; finer than JobStatus, for display. */
export const JobPhase = z.enum([
  'provisioning',
  'materializing',
  'setup',
  'run',
  'collecting',
  'tearing_down',
  'done',
]);
export type JobPhase = z.infer<typeof JobPhase>;

/** What the ledger knows about the thing that bills. */
export const LeaseState = z.enum([
  'requested', // intent written; the provider call may or may not have happened
  'created', // the provider returned a lease id: it bills from here on
  'destroying', // destroy called or pending retry; still billing until confirmed
  'destroyed', // the provider confirmed it is gone
  'lost', // the provider no longer lists it and we did not destroy it
  'not_created', // the intent never became a lease (create failed and no labelled lease exists)
]);
export type LeaseState = z.infer<typeof LeaseState>;

export const LIVE_LEASE_STATES: readonly LeaseState[] = ['requested', 'created', 'destroying'];
