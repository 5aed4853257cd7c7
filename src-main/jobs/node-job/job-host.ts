import type { AgentAddress } from '../../nodes/node-layout';
import type { AgentLogSink } from '../link/job-logs';
import type { JobEvent, JobState } from '../fsm/job-fsm';
import type { TransferDeps } from '../transfers/job-transfers';
import type { PulledOutputs } from '../outputs/pull';
import type { CheckpointGenerations } from '../checkpoints/generations';
import type { Attempt } from './attempt';
import type { JobLink } from './job-link';
import type { NodeJobDeps } from './node-job-deps';

/** What a NodeJob lends the modules that act for it, one per concern (provisioning,
 *  transfers, the run phase, loss watching): its deps, its state, and the attempt now
 *  running. They report back only through `dispatch`. */
export interface JobHost {
  readonly nodeId: string;
  readonly deps: NodeJobDeps;
  readonly logs: AgentLogSink;
  note(line: string): void;
  /** The job's state now. */
  readonly current: JobState;
  /** The attempt now running (a recovery or a replaced claim makes a new one). */
  readonly attempt: Attempt;
  readonly isDetached: boolean;
  /** The node's checkpoint generations (checkpoints/generations.ts). */
  readonly checkpoints: CheckpointGenerations;
  /** The outputs as the final collection brought them (for the receipt). */
  pulled: PulledOutputs | null;
  dispatch(event: JobEvent): void;
  /** Disposes the attempt now running and makes a fresh one for the job's attempt now. */
  replaceAttempt(): Attempt;
  markRunStarted(): void;
}

/** The agent's address as the node's record says now. */
export function agentAddress(h: JobHost): AgentAddress {
  const agent = h.deps.manager.record.agent;
  if (!agent) throw new Error('no agent');
  return agent.address;
}

/** What a bulk transfer of the attempt now running needs. */
export function transfersOf(h: JobHost, attempt: Attempt = h.attempt): TransferDeps {
  return {
    link: attempt.link(),
    address: () => agentAddress(h),
    note: h.note,
    now: h.deps.now,
    spareAfterPush: needsBulkSoonAfterPush(h),
  };
}

/** Whether a bulk transfer may follow the push soon (a spare connection is worth opening
 *  behind it): declared outputs to collect, checkpoints to restore, a sweep's cells. A job
 *  without them collects only what a glance finds (outputs.glance), usually nothing. */
function needsBulkSoonAfterPush(h: JobHost): boolean {
  const { job, sweep } = h.deps;
  return job.outputs.length > 0 || job.checkpoints !== undefined || sweep !== undefined;
}

/** How long a phase's exit waits for the agent's last log lines to be stored: lines that
 *  never arrive (a link down for good) must not hold the job's outcome. */
const DRAIN_DEADLINE_MS = 30_000;

/** Waits until every log record the agent has written is stored here: up to `seq` where
 *  a phase's exit state says it (every line of the phase; nothing to ask), else up to the
 *  last one `status` says. */
export async function drainLogs(h: JobHost, link: JobLink, seq?: number): Promise<void> {
  const last = seq ?? (await link.request('status', {})).lastSeq;
  await h.logs.waitStored(last, DRAIN_DEADLINE_MS);
}
