import type { JobStatus, NodeStage } from '../../contract';
import type { NodeRecord } from '../../ledger/node-record';
import type { JobEvent } from '../fsm/job-fsm';

export type TeardownPlan =
  /** Kept warm (`--keep`): the node stays up and listed; `note` says until when. */
  | { kind: 'keep'; note: string }
  /** A destroy begun by a process that died: re-issue it (idempotent); Destroy itself would
   *  be ignored in that stage. */
  | { kind: 'redo-destroy' }
  | { kind: 'destroy'; reason: string };

/** How the job's teardown treats its node. A node is kept only when asked, only when up,
 *  and never once its own dead-man switch has fired. */
export function teardownPlan(facts: {
  keep: boolean;
  stage: NodeStage;
  selfTeardown: string | null;
  hasDeadMan: boolean;
  status: JobStatus;
}): TeardownPlan {
  if (facts.keep && facts.stage === 'dormant' && facts.selfTeardown === null) {
    return {
      kind: 'keep',
      // With a switch the node destroys itself once idle, or once this process is gone
      // past the grace; without one nothing ever does.
      note: facts.hasDeadMan
        ? 'node kept warm: it stays listed and billed until it has been idle for the idle timeout, or `tender down`'
        : 'node kept (--keep): it stays listed and billed until `tender down`',
    };
  }
  if (facts.stage === 'destroying') return { kind: 'redo-destroy' };
  return { kind: 'destroy', reason: facts.selfTeardown ?? `job ${facts.status}` };
}

/** The teardown's outcome once its destroy settled (`isDestroySettled`). */
export function teardownOutcome(rec: NodeRecord): Extract<JobEvent, { type: 'TeardownComplete' }> {
  if (rec.stage === 'destroyed') return { type: 'TeardownComplete', error: null };
  return {
    type: 'TeardownComplete',
    error: `not confirmed destroyed: ${rec.lastError ?? 'unknown error'}`,
  };
}
