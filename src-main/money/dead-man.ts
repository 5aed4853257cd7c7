// The app's side of each node's dead-man switch: what to tell the agent at each renewal,
// what to remember of it, and, when a node has vanished, why it most likely destroyed itself.
// Pure: times in, params and words out.
import type { LeaseParams, SelfTeardown, TeardownRecord } from '../../src-agent/wire/protocol';
import { formatDuration, type LeasePolicy } from '../contract/policy';
import type { DeadManFacts } from '../ledger/rows';

/** How often the app renews: a few times per grace period, at most once a minute. */
export function renewEveryMs(graceMs: number): number {
  return Math.min(60_000, Math.max(100, Math.floor(graceMs / 4)));
}

export interface RenewalInput {
  policy: LeasePolicy;
  /** When the lease was created (max_duration counts from here). */
  leaseCreatedAt: number;
  /** When the run's budget runs out at the current burn (null: no budget or nothing bills). */
  budgetDeadlineAt: number | null;
  inUse: boolean;
  collected: boolean;
  jobEndedAt: number | null;
  teardown: SelfTeardown;
  now: number;
}

/** The `lease` request for a renewal; durations are relative to now. */
export function renewalParams(r: RenewalInput): LeaseParams {
  const { policy, now } = r;
  const maxDeadline =
    policy.maxDurationMs === null ? null : r.leaseCreatedAt + policy.maxDurationMs;
  return {
    graceMs: policy.unreachableGraceMs,
    maxDurationMs: maxDeadline === null ? null : Math.max(0, maxDeadline - now),
    budgetMs: r.budgetDeadlineAt === null ? null : Math.max(0, r.budgetDeadlineAt - now),
    afterJob: policy.afterJob,
    idleTimeoutMs: policy.idleTimeoutMs,
    collectGraceMs: policy.collectGraceMs ?? null,
    // Sent only when set: an agent from before the field ignores it; absent means off.
    ...(policy.idleGpuUtilBelow !== undefined ? { idleGpuUtilBelow: policy.idleGpuUtilBelow } : {}),
    inUse: r.inUse,
    collected: r.collected,
    teardown: r.teardown,
  };
}

/** What the ledger keeps of a renewal the agent acknowledged at `at`: the params it was sent
 *  (their durations counted from then), so nothing is computed a second time. */
export function renewalFacts(
  p: LeaseParams,
  at: number,
  jobEndedAt: number | null,
  previous: DeadManFacts | null,
): DeadManFacts {
  return {
    graceMs: p.graceMs,
    armedAt: previous?.armedAt ?? at,
    renewedAt: at,
    maxDeadlineAt: p.maxDurationMs == null ? null : at + p.maxDurationMs,
    budgetDeadlineAt: p.budgetMs == null ? null : at + p.budgetMs,
    idleTimeoutMs: p.idleTimeoutMs ?? null,
    afterJob: p.afterJob,
    jobEndedAt,
    inUse: p.inUse === true,
    selfTeardown: previous?.selfTeardown ?? null,
  };
}

/** The words the ledger shows for a node that destroyed itself. */
export function selfTeardownText(reason: string): string {
  return `destroyed by its own dead-man switch: ${reason}`;
}

/** The words the ledger keeps for a node whose switch fired, as its record says. A billed
 *  node that cannot destroy itself (no per-instance credential: `remove-files`), or whose
 *  own destroy failed, only stopped its job: the lease bills on until Tender destroys it,
 *  and the words say so. On a machine you own, removing the run's files is the teardown. */
export function selfTeardownWords(
  rec: Pick<TeardownRecord, 'reason' | 'state' | 'error'>,
  node: { bills: boolean; destroysItself: boolean },
): string {
  if (!node.bills) return selfTeardownText(rec.reason);
  if (rec.state === 'failed')
    return `${rec.reason}: the node stopped its job but could not tear itself down (${rec.error ?? 'no reason given'}); lease destroyed by Tender`;
  if (!node.destroysItself)
    return `${rec.reason}: the node stopped its job and removed its files; lease destroyed by Tender`;
  return selfTeardownText(rec.reason);
}

export function fromAgentRecord(rec: TeardownRecord): DeadManFacts['selfTeardown'] {
  return { cause: rec.cause, reason: rec.reason, at: rec.at, state: rec.state };
}

/**
 * A node whose lease vanished: did its own switch fire, and why? The node's own words when
 * it told us before it went; otherwise the earliest deadline it was given that has passed.
 * Null when none has: the lease went for some other reason.
 */
export function inferSelfTeardown(
  f: DeadManFacts,
  now: number,
): { reason: string; at: number } | null {
  if (f.selfTeardown)
    return { reason: selfTeardownText(f.selfTeardown.reason), at: f.selfTeardown.at };
  const last = new Date(f.renewedAt).toISOString();
  // A node last told its job runs has no unreachable deadline until the job ends, which
  // happened out of sight: it went at some time before now, and is billed until now
  // (never less than it may have cost).
  const candidates: { at: number; why: string }[] = f.inUse
    ? [
        {
          // Never before a grace after the last renewal: it cannot have fired sooner.
          at: now >= f.renewedAt + f.graceMs ? now : Infinity,
          why: `its job ended while nobody was attached and no Tender came within the grace (last renewal ${last})`,
        },
      ]
    : [
        {
          at: f.renewedAt + f.graceMs,
          why: `app unreachable for ${minutes(f.graceMs)} (last renewal ${last})`,
        },
      ];
  if (f.maxDeadlineAt !== null)
    candidates.push({ at: f.maxDeadlineAt, why: 'max duration reached' });
  if (f.budgetDeadlineAt !== null)
    candidates.push({ at: f.budgetDeadlineAt, why: 'budget reached' });
  if (f.idleTimeoutMs !== null && f.jobEndedAt !== null && f.afterJob === 'keep_warm') {
    candidates.push({
      at: f.jobEndedAt + f.idleTimeoutMs,
      why: `idle for ${minutes(f.idleTimeoutMs)} after the job (keep_warm)`,
    });
  }
  const first = candidates.filter((c) => c.at <= now).sort((a, b) => a.at - b.at)[0];
  return first ? { reason: selfTeardownText(first.why), at: first.at } : null;
}

function minutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : formatDuration(ms);
}
