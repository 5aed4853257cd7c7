import type { TeardownRecord } from '../../src-agent/wire/protocol';

/** What the job does about a node that is gone, however that became known. */
export type NodeGoneAction =
  /** The job was still going: it is lost (NodeLost), and its teardown confirms the destroy. */
  | 'job-lost'
  /** The job had ended (a kept node): nothing of it is left to do; destroy the node. */
  | 'destroy-node';

export type SelfTeardownAction = NodeGoneAction | 'ignore';

/** The node said its dead-man switch fired. Acted on once, and only while this process
 *  drives the node and armed a switch on it. */
export function selfTeardownAction(facts: {
  isDetached: boolean;
  isKnown: boolean;
  isArmed: boolean;
  isJobDone: boolean;
}): SelfTeardownAction {
  if (facts.isDetached || facts.isKnown || !facts.isArmed) return 'ignore';
  return facts.isJobDone ? 'destroy-node' : 'job-lost';
}

/** A node whose agent no longer answers, its lease still listed, may have had its switch
 *  fire while nobody was attached: the agent stops the job, removes the run's files (a
 *  provider without a per-instance credential, or one whose own destroy failed) and ends
 *  itself, and the instance bills on. Its record on the node's disk is then acted on as the
 *  node's own words (the lease destroyed the usual way, nothing left to collect) — except
 *  where the node kept its outputs for a Tender (`outputs_kept`: its agent stays and is
 *  collected from) or stopped its instance for them (`stop_*`: the next Tender starts it
 *  again, wake-stopped.ts). */
export function isTeardownToActOn(state: TeardownRecord['state']): boolean {
  switch (state) {
    case 'stopping_job':
    case 'destroying':
    case 'destroy_requested':
    case 'files_removed':
    case 'failed':
      return true;
    case 'outputs_kept':
    case 'stopping_instance':
    case 'stop_requested':
      return false;
  }
}

/** A dropped link alone proves nothing (the job keeps running on the node while the link
 *  reconnects): the node is lost only when the provider confirms its lease gone, and only
 *  while this process still drives it. */
export function isNodeLost(facts: { isLeaseGone: boolean; isDetached: boolean }): boolean {
  return facts.isLeaseGone && !facts.isDetached;
}

export interface LeaseGoneDecision {
  action: NodeGoneAction;
  reason: string;
  /** The node's own switch explains the loss: the destroy reason the ledger keeps. */
  selfTeardown: string | null;
}

/** A lease found gone after the link dropped (`isNodeLost`). `explained`: the words for it
 *  when the node's own dead-man switch accounts for it, else null. */
export function leaseGoneDecision(facts: {
  explained: string | null;
  detail: string;
  isJobDone: boolean;
}): LeaseGoneDecision {
  return {
    action: facts.isJobDone ? 'destroy-node' : 'job-lost',
    reason: facts.explained ?? `the lease is gone (${facts.detail})`,
    selfTeardown: facts.explained,
  };
}
