import type { TeardownRecord } from '../../../src-agent/wire/protocol';

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

/** Acted on once per lease, and only for the lease the job is on now: a link of a lease
 *  that a recovery already replaced may still report its losses. */
export function isLeaseToActOn(facts: {
  label: string;
  currentLabel: string;
  actedOn: ReadonlySet<string>;
}): boolean {
  return facts.label === facts.currentLabel && !facts.actedOn.has(facts.label);
}

/** What ended a lease, in its provider's words (Provider.whyGone). */
export interface GoneWhy {
  words: string;
  cause: 'node_lost' | 'preempted' | 'ended';
}

export type LeaseGoneOutcome =
  /** Taken back by its provider: recovered per `[recovery]` like a lost node. */
  | { kind: 'preempted'; reason: string }
  /** Ended on purpose (a time limit, a cancel from outside): not recovered; what the job
   *  left is collected where it still can be, and the job fails with the provider's words. */
  | { kind: 'ended'; reason: string }
  /** The node's own switch explains it: its words are the destroy reason. */
  | { kind: 'self-teardown'; action: NodeGoneAction; words: string }
  /** A machine gone under the job: its host is remembered when the job was running. */
  | { kind: 'lost'; action: NodeGoneAction; reason: string; isHostToRemember: boolean };

/** A lease proven gone (`leaseGoneDecision`), with what its provider says ended it. */
export function leaseGoneOutcome(why: GoneWhy | null, loss: LeaseGoneDecision): LeaseGoneOutcome {
  if (why && why.cause !== 'node_lost' && !loss.selfTeardown && loss.action === 'job-lost') {
    return why.cause === 'preempted'
      ? { kind: 'preempted', reason: why.words }
      : { kind: 'ended', reason: why.words };
  }
  if (loss.selfTeardown)
    return { kind: 'self-teardown', action: loss.action, words: loss.selfTeardown };
  return {
    kind: 'lost',
    action: loss.action,
    reason: loss.reason,
    isHostToRemember: loss.action === 'job-lost',
  };
}

export type InterruptionOutcome =
  /** The reconciler has not recorded one yet: look at its record again shortly. */
  | { kind: 'look-again' }
  /** Taken back, not recovered (no `preempted` in `[recovery]`): the job waits for it to run
   *  again (a raised bid). */
  | { kind: 'wait' }
  | { kind: 'lost'; cause: 'node_lost' | 'preempted'; reason: string; isHostToRemember: boolean };

/** The link dropped and the lease is still listed, and the reconciler recorded `taken` of
 *  it (`outbid`, `stopped`, `exited`; null: nothing). An instance that exited (its host or
 *  container died) is a node lost, on the provider's word; one outbid or stopped was taken
 *  back (preempted). */
export function interruptionOutcome(facts: {
  taken: string | null;
  recoverOn: readonly string[];
}): InterruptionOutcome {
  if (!facts.taken) return { kind: 'look-again' };
  const cause = facts.taken === 'exited' ? 'node_lost' : 'preempted';
  if (cause === 'preempted' && !facts.recoverOn.includes(cause)) return { kind: 'wait' };
  return {
    kind: 'lost',
    cause,
    reason: `the provider says ${facts.taken}`,
    isHostToRemember: cause === 'node_lost',
  };
}

/** A teardown record found on the node's disk is acted on only while the job is where it
 *  was when the look began: attached, not done, the same attempt, no switch already known,
 *  and the lease still the one to act on. */
export function isDiskTeardownCurrent(facts: {
  isDetached: boolean;
  isJobDone: boolean;
  attemptAtLook: number;
  attemptNow: number;
  isSelfTeardownKnown: boolean;
  isLeaseToActOn: boolean;
}): boolean {
  return (
    !facts.isDetached &&
    !facts.isJobDone &&
    facts.attemptAtLook === facts.attemptNow &&
    !facts.isSelfTeardownKnown &&
    facts.isLeaseToActOn
  );
}
