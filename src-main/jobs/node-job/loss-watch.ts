import type { TeardownRecord } from '../../../src-agent/wire/protocol';
import type { NodeRecord } from '../../ledger/node-record';
import {
  interruptionOutcome,
  isDiskTeardownCurrent,
  isLeaseToActOn,
  isNodeLost,
  isTeardownToActOn,
  leaseGoneDecision,
  leaseGoneOutcome,
  type NodeGoneAction,
  selfTeardownAction,
} from '../teardown/node-loss';
import { readTeardownOnDisk } from '../teardown/teardown-on-disk';
import type { JobHost } from './job-host';
import { collectAfterEnd } from './node-transfers';

/** How soon a job whose link is down looks again at what the reconciler recorded. */
const INTERRUPTION_LOOK_MS = 1_000;
/** Between two looks for a teardown record on the disk of a node whose agent does not
 *  answer: the link's longest backoff, so a link down for long costs one extra connection
 *  per retry at most. */
const TEARDOWN_LOOK_MS = 10_000;

/**
 * Watches a node's job for the node going away: a dropped link proves nothing by itself,
 * so it asks the provider (lease gone, and why), the reconciler (an interruption it
 * recorded), and the node's disk (a teardown record its switch left). What each finding
 * means is decided in node-loss.ts; this performs it, once per lease.
 */
export class LossWatch {
  /** Leases found gone (each is acted on once). */
  private readonly actedOn = new Set<string>();

  constructor(
    private readonly h: JobHost,
    private readonly isLinkLost: () => boolean,
  ) {}

  /** The link to `rec`'s agent was lost. */
  async onLinkLost(rec: NodeRecord, detail: string): Promise<void> {
    const { h } = this;
    const isLeaseGone = await h.deps.isLeaseGone(rec).catch(() => false);
    if (!isLeaseGone) {
      // Beside the look at what the reconciler saw: a node unreachable for another reason
      // does not hold that up.
      void this.findTeardownOnDisk(rec);
      return this.checkInterrupted(rec);
    }
    if (!isNodeLost({ isLeaseGone, isDetached: h.isDetached })) return;
    if (!this.takeLease(rec)) return;
    const why = (await h.deps.whyLeaseGone?.(rec).catch(() => null)) ?? null;
    const loss = leaseGoneDecision({
      explained: h.deps.deadMan?.explainLoss() ?? null,
      detail: why?.words ?? detail,
      isJobDone: h.current.phase === 'done',
    });
    const outcome = leaseGoneOutcome(why, loss);
    switch (outcome.kind) {
      case 'preempted':
        return h.dispatch({ type: 'NodeLost', reason: outcome.reason, cause: 'preempted' });
      case 'ended':
        await collectAfterEnd(h, rec);
        return h.dispatch({ type: 'NodeFault', reason: outcome.reason });
      case 'self-teardown':
        h.attempt.selfTeardown ??= outcome.words;
        h.attempt.stopRenewing();
        h.note(outcome.words);
        return this.nodeGone(outcome.action, outcome.words);
      case 'lost':
        if (outcome.isHostToRemember) h.deps.recordLostHost(rec, outcome.reason);
        return this.nodeGone(outcome.action, outcome.reason);
    }
  }

  /** The node's own switch fired: it is stopping its job and destroying itself. The app
   *  still destroys the lease the usual way (idempotent) and confirms it gone. */
  onSelfTeardown(record: TeardownRecord): void {
    const { h } = this;
    const attempt = h.attempt;
    if (attempt.claim) return; // the claim check replaces a node whose switch fired
    // On a machine that does not bill, an unattended job's uncollected outputs wait on the
    // node with its agent: nothing is torn down, collection and teardown go on as usual.
    if (record.state === 'outputs_kept') {
      h.note(`${record.reason}: its outputs waited on the node; collecting them now`);
      return;
    }
    const action = selfTeardownAction({
      isDetached: h.isDetached,
      isKnown: attempt.selfTeardown !== null,
      isArmed: Boolean(h.deps.deadMan),
      isJobDone: h.current.phase === 'done',
    });
    if (action === 'ignore' || !h.deps.deadMan) return;
    attempt.selfTeardown = h.deps.deadMan.onSelfTeardown(record);
    attempt.stopRenewing();
    h.note(`${attempt.selfTeardown} (the node is tearing itself down)`);
    this.nodeGone(action, attempt.selfTeardown);
  }

  /** The link dropped and the lease is still listed: an interruptible node the provider
   *  took back (the reconciler saw it) is recovered elsewhere when `[recovery]` covers
   *  it; otherwise the job waits (a raised bid resumes it). */
  private checkInterrupted(rec: NodeRecord): void {
    const { h } = this;
    if (h.isDetached) return;
    const outcome = interruptionOutcome({
      taken: h.deps.leaseInterruption(rec),
      recoverOn: h.current.recoverOn,
    });
    if (outcome.kind === 'look-again') {
      // The reconciler marks an interruption within one pass of the listing that shows it;
      // while the link stays down, look at what it recorded again shortly (a ledger read).
      h.attempt.lookAgain(INTERRUPTION_LOOK_MS, () => {
        if (this.isLinkLost() && h.current.phase !== 'done') this.checkInterrupted(rec);
      });
      return;
    }
    if (outcome.kind === 'wait' || !this.takeLease(rec)) return;
    if (outcome.isHostToRemember) h.deps.recordLostHost(rec, outcome.reason);
    h.dispatch({ type: 'NodeLost', reason: outcome.reason, cause: outcome.cause });
  }

  /** The link finds no agent and the lease is still listed: the node's switch may have
   *  fired while nobody was attached and its agent ended itself (isTeardownToActOn). Its
   *  record, read from the node's disk over a shell of its own, is then taken as the node's
   *  own words: nothing is collected, the lease is destroyed (confirmed). */
  private async findTeardownOnDisk(rec: NodeRecord): Promise<void> {
    const { h } = this;
    const attempt = h.attempt;
    if (!h.deps.deadMan || !rec.connection || !rec.agent) return;
    const now = h.deps.now();
    if (attempt.teardownLookAt !== null && now - attempt.teardownLookAt < TEARDOWN_LOOK_MS) return;
    attempt.teardownLookAt = now;
    const connect = (h.deps.connectLight ?? h.deps.connect)(rec.connection);
    const record = await readTeardownOnDisk(connect, rec.agent.address, TEARDOWN_LOOK_MS);
    if (!record || !isTeardownToActOn(record.state)) return;
    const isCurrent = isDiskTeardownCurrent({
      isDetached: h.isDetached,
      isJobDone: h.current.phase === 'done',
      attemptAtLook: attempt.n,
      attemptNow: h.current.attempt,
      isSelfTeardownKnown: h.attempt.selfTeardown !== null,
      isLeaseToActOn: this.isLeaseToActOn(rec),
    });
    if (!isCurrent || attempt.isDisposed) return;
    this.actedOn.add(rec.label);
    h.note(
      `the node's agent does not answer; its dead-man switch fired: ${record.reason} (${record.state})`,
    );
    this.onSelfTeardown(record);
  }

  private nodeGone(action: NodeGoneAction, reason: string): void {
    if (action === 'job-lost') return this.h.dispatch({ type: 'NodeLost', reason });
    this.h.attempt.closeLink();
    this.h.deps.manager.send({ type: 'Destroy', reason });
  }

  private isLeaseToActOn(rec: NodeRecord): boolean {
    const currentLabel = this.h.deps.manager.record.label;
    return isLeaseToActOn({ label: rec.label, currentLabel, actedOn: this.actedOn });
  }

  /** True once per lease: the caller acts on it. */
  private takeLease(rec: NodeRecord): boolean {
    if (!this.isLeaseToActOn(rec)) return false;
    this.actedOn.add(rec.label);
    return true;
  }
}
