import { LIVE_LEASE_STATES, type LeaseInterruption, type LeaseState } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import type { LeaseRow } from '../../ledger/rows';
import { labelPrefix } from '../../base/ids';
import { inferSelfTeardown } from '../../money/dead-man';
import type { NodeMsg } from '../../nodes/messages';
import { isInChain } from '../../providers/failover/chain';
import type { LeaseCondition, LeaseFacts, Provider } from '../../providers/provider';
import type { ProviderRegistry } from '../../providers/registry';

/** A lease missing from a list this soon after creation may just not be visible yet. */
const LIST_GRACE_MS = 2 * 60_000;
/** One provider listing may take this long before it counts as unreachable. */
const LIST_DEADLINE_MS = 60_000;

/** Which providers a pass asks:
 *  - `live`: those holding a live lease in the ledger (the periodic pass);
 *  - `billing`: those too, and every provider that bills (start, wake: a lease the ledger
 *    lost is found before it bills for long);
 *  - `every`: every configured provider (the status view and tear down all, which show
 *    orphans of any provider). */
export type ReconcileScope = 'live' | 'billing' | 'every';

export interface Orphan {
  provider: string;
  leaseId: string;
  label: string;
  facts: LeaseFacts;
}

export interface ReconcileReport {
  reason: string;
  scope: ReconcileScope;
  /** When the pass finished (the reconciler's clock). */
  at: number;
  adopted: string[];
  lost: string[];
  /** Live leases this pass found newly interrupted (outbid, stopped, exited), by label. */
  interrupted: string[];
  /** Labelled leases the ledger does not hold as live, sorted by label. */
  orphans: Orphan[];
  unreachable: { provider: string; error: string }[];
}

export interface ReconcilerDeps {
  ledger: Pick<Ledger, 'installId' | 'listLeases' | 'getNode' | 'append' | 'setInterruption'>;
  providers: Pick<ProviderRegistry, 'all'>;
  now: () => number;
  everyMs: number;
  /** Only the ledger's writer adopts, marks lost and journals; a reader only looks. */
  canWrite: boolean;
  /** Hands a fact about a node to its NodeManager (the one a run driver owns, or a
   *  short-lived one that records it). */
  deliver(nodeId: string, provider: Provider, msg: NodeMsg): void;
  /** A lease left `destroying` that the provider still holds: try its destroy again. */
  retryDestroy?(nodeId: string, provider: Provider): void;
}

/**
 * Level-triggered reconciliation, the one place Tender compares the ledger with what the
 * providers list. At start, on wake from sleep, and every interval while any lease is live,
 * each provider lists the leases carrying this install's label prefix and the ledger is
 * brought in line:
 * - a `requested` lease the provider lists is adopted (the create happened; record it);
 * - a live lease the provider no longer lists, and confirms gone, is `lost` (or, while
 *   being destroyed, destroyed);
 * - a labelled lease the ledger does not hold as live (`LIVE_LEASE_STATES`) is an orphan:
 *   journaled once; `tender status` shows and `tender down --orphans` destroys it;
 * - a lease left `destroying` that is not gone is handed back to its destroy (retried to a
 *   confirmed end, services/leases/destroy-retries.ts);
 * - a created lease the listing shows outbid, stopped or exited is marked interrupted (and
 *   `lease.interrupted` journaled) in that same pass; listed running again, it is cleared.
 *   Nothing else is done about it here: recovery reads the mark and the journal.
 * Leases without Tender's prefix are never looked at. Each provider's last listing is kept
 * for a few seconds, so a status asked right after a pass lists nothing again.
 */
export class Reconciler {
  private timer: NodeJS.Timeout | null = null;
  private lastTimerAt: number;
  private running: Promise<ReconcileReport> | null = null;
  /** Each provider's last listing, so a status asked right after a pass lists nothing. */
  private readonly listings = new Map<string, { at: number; facts: LeaseFacts[] }>();
  private readonly seenOrphans = new Set<string>();

  constructor(private readonly deps: ReconcilerDeps) {
    this.lastTimerAt = deps.now();
  }

  start(): void {
    void this.tick('start', true);
    this.timer = setInterval(() => {
      const now = this.deps.now();
      // A timer that fires far later than asked means the machine slept.
      const reason = now - this.lastTimerAt > 3 * this.deps.everyMs ? 'wake' : 'interval';
      this.lastTimerAt = now;
      if (reason === 'wake' || this.deps.ledger.listLeases(LIVE_LEASE_STATES).length > 0)
        void this.tick(reason, reason === 'wake');
    }, this.deps.everyMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass in flight (it writes to the ledger). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => {});
  }

  /** One pass; `all` also asks billing providers with no live lease (to find orphans). */
  tick(reason: string, all = false): Promise<ReconcileReport> {
    return this.pass(reason, all ? 'billing' : 'live');
  }

  /** A pass over every configured provider, reusing any provider's listing made within
   *  `reuseWithinMs`: what the status view and tear down all show. */
  survey(reason: string, reuseWithinMs: number): Promise<ReconcileReport> {
    return this.pass(reason, 'every', reuseWithinMs);
  }

  /** Listings made before now are not reused (leases were just destroyed). */
  forgetListings(): void {
    this.listings.clear();
  }

  /** Concurrent passes share one: a pass in flight answers a later ask of a narrower or
   *  equal scope; a wider ask waits for it, then runs its own. */
  private async pass(
    reason: string,
    scope: ReconcileScope,
    reuseWithinMs = 0,
  ): Promise<ReconcileReport> {
    const inFlight = this.running;
    if (inFlight) {
      const report = await inFlight.catch(() => null);
      if (report && covers(report.scope, scope)) return report;
      if (this.running) return this.pass(reason, scope, reuseWithinMs);
    }
    const run = this.run(reason, scope, reuseWithinMs).finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  private async run(
    reason: string,
    scope: ReconcileScope,
    reuseWithinMs: number,
  ): Promise<ReconcileReport> {
    const { ledger, providers, now } = this.deps;
    const report: ReconcileReport = {
      reason,
      scope,
      at: now(),
      adopted: [],
      lost: [],
      interrupted: [],
      orphans: [],
      unreachable: [],
    };
    const prefix = labelPrefix(ledger.installId());
    const live = ledger.listLeases(LIVE_LEASE_STATES);
    await Promise.all(
      providers.all().map(async (provider) => {
        if (provider.isConfigured && !provider.isConfigured()) return;
        // A lease of a pool naming several providers is each member's until one made it.
        const mine = live.filter((l) => isInChain(l.provider, provider.kind));
        if (!asks(scope, provider, mine.length > 0)) return;
        try {
          const listed = await this.listing(provider, prefix, reuseWithinMs);
          await this.reconcileProvider(provider, listed, mine, report);
          if (this.deps.canWrite) await this.removeLeftovers(provider, prefix, listed, report);
        } catch (err) {
          report.unreachable.push({ provider: provider.kind, error: (err as Error).message });
        }
      }),
    );
    report.orphans.sort((a, b) => a.label.localeCompare(b.label));
    if (this.deps.canWrite) this.journalOrphans(report);
    report.at = now();
    return report;
  }

  private async listing(
    provider: Provider,
    prefix: string,
    reuseWithinMs: number,
  ): Promise<LeaseFacts[]> {
    const kept = this.listings.get(provider.kind);
    if (kept && this.deps.now() - kept.at <= reuseWithinMs) return kept.facts;
    const facts = await provider.listLabeled(prefix, AbortSignal.timeout(LIST_DEADLINE_MS));
    this.listings.set(provider.kind, { at: this.deps.now(), facts });
    return facts;
  }

  private async reconcileProvider(
    provider: Provider,
    listing: LeaseFacts[],
    mine: LeaseRow[],
    report: ReconcileReport,
  ): Promise<void> {
    const { ledger, now } = this.deps;
    const signal = AbortSignal.timeout(LIST_DEADLINE_MS);
    const listed = new Map(listing.map((f) => [f.label, f]));
    for (const lease of this.deps.canWrite ? mine : []) {
      const facts = listed.get(lease.label);
      const rec = lease.nodeId ? ledger.getNode(lease.nodeId) : undefined;
      if (!rec) continue; // an orphan being destroyed is settled by its own destroy
      if (lease.state === 'requested' && facts) {
        this.deps.deliver(rec.id, provider, { type: 'LeaseFound', lease: facts, endpoint: null });
        report.adopted.push(lease.label);
      } else if (lease.state !== 'requested' && !facts && rec.lease) {
        // A node that destroyed itself (its dead-man switch) says why through what it was told.
        const self = lease.deadMan ? inferSelfTeardown(lease.deadMan, now()) : null;
        const young = lease.createdAt !== null && now() - lease.createdAt < LIST_GRACE_MS;
        if (young && !self) continue;
        // Absent from a list is not proof: only the provider saying it is gone is.
        if (!(await provider.isGone(rec.lease.destroyHandle, signal))) {
          if (lease.state === 'destroying') this.deps.retryDestroy?.(rec.id, provider);
          continue;
        }
        this.deps.deliver(
          rec.id,
          provider,
          self
            ? { type: 'LeaseLost', reason: self.reason, selfDestroyedAt: self.at }
            : { type: 'LeaseLost', reason: 'the provider no longer lists it' },
        );
        report.lost.push(lease.label);
      } else if (lease.state === 'destroying') {
        this.deps.retryDestroy?.(rec.id, provider);
      }
    }
    if (this.deps.canWrite) this.recordConditions(mine, listed, report);
    const known = new Map<string, LeaseState>(ledger.listLeases().map((l) => [l.label, l.state]));
    for (const [label, facts] of listed) {
      const state = known.get(label);
      if (state !== undefined && LIVE_LEASE_STATES.includes(state)) continue;
      report.orphans.push({ provider: provider.kind, leaseId: facts.leaseId, label, facts });
    }
  }

  /** What the listing says each created lease is doing, written when it changed: costs no
   *  provider call of its own, so an interruption is seen within the pass that lists it. */
  private recordConditions(
    mine: LeaseRow[],
    listed: Map<string, LeaseFacts>,
    report: ReconcileReport,
  ): void {
    for (const lease of mine) {
      const c = listed.get(lease.label)?.condition;
      if (lease.state !== 'created' || !c) continue;
      const was = lease.interruption;
      const interruption = interruptionAfter(c.state, was);
      this.deps.ledger.setInterruption(
        lease.label,
        { interruption, bid: c.bid ?? lease.bid, minBid: c.minBid ?? lease.minBid },
        this.deps.now(),
      );
      if (interruption !== null && interruption !== was) report.interrupted.push(lease.label);
    }
  }

  /** What a provider made beside leases that no lease needs any more (RunPod: a registry
   *  login left by a crash between its save and the pod): deleted, and journaled. A label
   *  listed now, or held live by the ledger (a create in flight is `requested`), is kept. */
  private async removeLeftovers(
    provider: Provider,
    prefix: string,
    listed: LeaseFacts[],
    report: ReconcileReport,
  ): Promise<void> {
    if (!provider.removeLeftovers) return;
    const keep = new Set(listed.map((f) => f.label));
    for (const l of this.deps.ledger.listLeases(LIVE_LEASE_STATES)) keep.add(l.label);
    let removed: string[];
    try {
      removed = await provider.removeLeftovers(
        prefix,
        (label) => keep.has(label),
        AbortSignal.timeout(LIST_DEADLINE_MS),
      );
    } catch {
      return; // the next pass tries again
    }
    for (const what of removed)
      this.deps.ledger.append({
        ts: this.deps.now(),
        runId: null,
        nodeId: null,
        kind: 'leftover.removed',
        data: { provider: provider.kind, what, reason: report.reason },
      });
  }

  private journalOrphans(report: ReconcileReport): void {
    for (const { label } of report.orphans) {
      if (this.seenOrphans.has(label)) continue;
      this.seenOrphans.add(label);
      this.deps.ledger.append({
        ts: this.deps.now(),
        runId: null,
        nodeId: null,
        kind: 'orphan.seen',
        data: { label, reason: report.reason },
      });
    }
  }
}

const SCOPE_WIDTH: Record<ReconcileScope, number> = { live: 0, billing: 1, every: 2 };

function covers(done: ReconcileScope, asked: ReconcileScope): boolean {
  return SCOPE_WIDTH[done] >= SCOPE_WIDTH[asked];
}

/** Whether a pass of `scope` asks this provider. */
function asks(scope: ReconcileScope, provider: Provider, hasLiveLease: boolean): boolean {
  if (hasLiveLease || scope === 'every') return true;
  return scope === 'billing' && provider.bills === true;
}

/** A lease's interruption once listed in `state`: running clears it; loading keeps what was
 *  (an outbid lease being scheduled again is not running yet). */
export function interruptionAfter(
  state: LeaseCondition['state'],
  was: LeaseInterruption | null,
): LeaseInterruption | null {
  switch (state) {
    case 'running':
      return null;
    case 'loading':
      return was;
    default:
      return state;
  }
}
