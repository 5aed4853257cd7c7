import type { HostKeyInput } from '../../../src-agent/wire/host-key';
import type { AttemptRow, LeaseRow, RunRow } from '../../ledger/rows';
import type { NodeRecord } from '../../ledger/node-record';
import { differingFields, hostKey } from '../../jobs/host/host-declaration';
import { chainOf, isInChain } from '../../providers/failover/chain';
import type { NodeShape } from '../../providers/pool-shapes';
import { TenderError } from '../../base/tender-error';
import { type Constraint, unmet, unmetText } from '../../contract/constraint';

/** A node kept after its job, as the ledger holds it: its record, the run it served last,
 *  that run's attempt on it, and its lease. */
export interface WarmCandidate {
  node: NodeRecord;
  run: RunRow;
  attempt: AttemptRow | undefined;
  lease: LeaseRow | undefined;
}

/** What a new run asks of its nodes. */
export interface WarmWant {
  provider: string;
  hostKey: string;
  host: HostKeyInput;
  shapes: NodeShape[];
  maxPrice: number | undefined;
  /** The job's capability constraints: a warm node whose probed capabilities fail one is
   *  passed over (on a named host of yours: an error). */
  constraints?: Constraint[];
}

export interface WarmPlan {
  /** Shape slot → the warm node that takes it (the other slots are rented). */
  claims: Map<number, NodeRecord>;
  /** Why a warm node of this provider was not taken, one line each ("… host_setup differs"). */
  passedOver: string[];
  /** Machines you own cannot be rented again: a mismatch on a named host is an error. */
  conflicts: WarmConflict[];
}

/** Why a host of yours cannot serve, and the fix. */
export interface WarmConflict {
  message: string;
  hint: string;
}

const DECLARATION_HINT =
  'that host is kept warm for another declaration: `tender down <lease>` frees it, or declare the same host_setup, image and resources';
const CONSTRAINTS_HINT =
  'that host does not have what the constraints ask for: change them, or run on another host';

/** A warm node this close to its idle deadline is left to tear itself down: a claim must
 *  reach it (and renew its switch) before the switch fires. */
const IDLE_MARGIN_MS = 30_000;

/** Whether a kept node is free to serve another run: joined and idle, its job over, its
 *  lease billing and not on its way out. */
export function isWarm(c: WarmCandidate, now: number): boolean {
  const { node, run, attempt, lease } = c;
  // Past its idle deadline the node is tearing itself down (its own switch): not a host.
  const idleEnds = idleEndsAt(c);
  return (
    node.stage === 'dormant' &&
    node.ready &&
    node.agent !== null &&
    node.connection !== null &&
    !node.destroyRequested &&
    !node.leaseLost &&
    attempt?.phase === 'done' &&
    (run.keep || run.policy?.afterJob === 'keep_warm') &&
    lease?.state === 'created' &&
    !lease.deadMan?.selfTeardown &&
    (idleEnds === null || idleEnds > now + IDLE_MARGIN_MS)
  );
}

/** When a kept node's idle timeout tears it down (null: no idle timeout, or its job has not
 *  ended). As its switch was last told; a switch last renewed while the job ran was never
 *  told the job ended (the process driving it went first — `tender run --keep` exits as
 *  the run completes), yet its agent counts from that end all the same: then the run's
 *  policy and the end of its attempt on the node stand in, so no view says "no idle
 *  timeout" of a node that is about to tear itself down. */
export function idleEndsAt(c: Pick<WarmCandidate, 'lease' | 'run' | 'attempt'>): number | null {
  const dm = c.lease?.deadMan;
  const timeout = dm?.idleTimeoutMs ?? c.run.policy?.idleTimeoutMs ?? null;
  if (timeout === null) return null;
  const ended = dm?.jobEndedAt ?? (c.attempt?.phase === 'done' ? c.attempt.updatedAt : null);
  return ended === null ? null : ended + timeout;
}

/** The key a warm node was declared with: what its agent advertised at join, else what the
 *  run that rented it planned. */
export function advertisedKey(node: NodeRecord): string {
  return node.agent?.hostKey ?? node.desired.hostKey;
}

/** Which warm nodes a new run claims, slot by slot. Pure: the claim itself is one ledger
 *  transaction that checks each node is still free (ledger/warm-claims.ts). */
export function planWarmClaims(candidates: WarmCandidate[], want: WarmWant, now: number): WarmPlan {
  const claims = new Map<number, NodeRecord>();
  const passedOver: string[] = [];
  const conflicts: WarmConflict[] = [];
  const free = candidates
    .filter((c) => isSameProvider(c.node, want.provider) && isWarm(c, now))
    .sort((a, b) => (b.attempt?.updatedAt ?? 0) - (a.attempt?.updatedAt ?? 0));
  for (const c of free) {
    const slot = slotFor(c.node, want.shapes, claims);
    if (slot === null) continue;
    const name = c.node.lease?.leaseId ?? c.node.label;
    const key = advertisedKey(c.node);
    const needs = keyOn(want, c.node);
    if (key !== needs.hostKey) {
      const why = c.node.desired.host ? differingFields(c.node.desired.host, needs.host) : [];
      const line = `warm node ${name} has ${key}, this job needs ${needs.hostKey}${why.length ? `: ${why.join(', ')} ${why.length === 1 ? 'differs' : 'differ'}` : ''}`;
      if (want.shapes[slot]?.host !== undefined)
        conflicts.push({ message: line, hint: DECLARATION_HINT });
      else passedOver.push(line);
      continue;
    }
    const failed = unmet(want.constraints ?? [], c.node.agent?.capabilities ?? {});
    if (failed.length > 0) {
      const line = `warm node ${name} does not meet the job's constraints: ${unmetText(failed)}`;
      if (want.shapes[slot]?.host !== undefined)
        conflicts.push({ message: line, hint: CONSTRAINTS_HINT });
      else passedOver.push(line);
      continue;
    }
    const price = c.lease?.pricePerHour ?? null;
    if (want.maxPrice !== undefined && price !== null && price > want.maxPrice) {
      passedOver.push(
        `warm node ${name} costs $${price.toFixed(3)}/h, over max_price ${want.maxPrice}`,
      );
      continue;
    }
    claims.set(slot, c.node);
  }
  return { claims, passedOver, conflicts };
}

/** Whether a warm node can serve a run on `provider`: the same provider, or — a pool
 *  naming several — a node leased from one of them (either way round). */
function isSameProvider(node: NodeRecord, provider: string): boolean {
  if (node.desired.provider === provider) return true;
  return node.lease !== null && isInChain(provider, node.lease.provider);
}

/** The declaration a run needs of this node: a pool naming several providers needs it on
 *  the provider the node is leased from. */
function keyOn(want: WarmWant, node: NodeRecord): { hostKey: string; host: HostKeyInput } {
  if (!chainOf(want.provider) || !node.lease) return want;
  const host = { ...want.host, provider: node.lease.provider };
  return { host, hostKey: hostKey(host) };
}

/** A node on an own host takes the slot naming that host; any other takes the first free
 *  slot (its key already says it is the machine the job needs). */
function slotFor(
  node: NodeRecord,
  shapes: NodeShape[],
  taken: Map<number, NodeRecord>,
): number | null {
  const host = node.desired.shape.host;
  for (let i = 0; i < shapes.length; i++) {
    if (taken.has(i)) continue;
    const want = shapes[i]!.host;
    if (host === undefined && want === undefined) return i;
    if (host !== undefined && want === host) return i;
  }
  return null;
}

/** A plan with a conflict cannot be placed: the first one, as the error to show. */
export function throwOnConflict(plan: WarmPlan): void {
  const [c] = plan.conflicts;
  if (c) throw new TenderError('conflict', c.message, c.hint);
}
