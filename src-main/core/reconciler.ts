import { LIVE_LEASE_STATES } from '../contract';
import type { NodeManager } from '../nodes/node-manager';
import type { Provider } from '../providers/provider';
import { labelPrefix } from '../base/ids';
import { inferSelfTeardown } from '../money/dead-man';
import { makeNodeManager } from './node-wiring';
import type { TenderCore } from './tender-core';

/** A lease missing from a list this soon after creation may just not be visible yet. */
const LIST_GRACE_MS = 2 * 60_000;

export interface ReconcileReport {
  reason: string;
  adopted: string[];
  lost: string[];
  orphans: string[];
  unreachable: { provider: string; error: string }[];
}

/**
 * Level-triggered reconciliation (issue 4): at start, on wake from sleep, and every interval
 * while any lease is live, each provider lists the leases carrying this install's label
 * prefix and the ledger is brought in line:
 * - a `requested` lease the provider lists is adopted (the create happened; record it);
 * - a live lease the provider no longer lists, and confirms gone, is `lost` (or, while
 *   being destroyed, destroyed);
 * - a labelled lease the ledger does not hold is an orphan (journaled; `tender status` and
 *   `tender down --orphans` show and destroy it).
 * Leases without Tender's prefix are never looked at.
 */
export class Reconciler {
  private timer: NodeJS.Timeout | null = null;
  private lastTick: number;
  private running: Promise<ReconcileReport> | null = null;
  private readonly seenOrphans = new Set<string>();

  constructor(
    private readonly core: TenderCore,
    private readonly everyMs: number,
  ) {
    this.lastTick = core.now();
  }

  start(): void {
    void this.tick('start', true);
    this.timer = setInterval(() => {
      const now = this.core.now();
      // A timer that fires far later than asked means the machine slept.
      const reason = now - this.lastTick > 3 * this.everyMs ? 'wake' : 'interval';
      this.lastTick = now;
      if (reason === 'wake' || this.core.ledger.liveLeases().length > 0)
        void this.tick(reason, reason === 'wake');
    }, this.everyMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass in flight (it writes to the ledger). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => {});
  }

  /** One pass; concurrent calls share it. `all` also asks billing providers with no live
   *  lease in the ledger (to find orphans). */
  tick(reason: string, all = false): Promise<ReconcileReport> {
    this.running ??= this.pass(reason, all).finally(() => (this.running = null));
    return this.running;
  }

  private async pass(reason: string, all: boolean): Promise<ReconcileReport> {
    const { ledger, providers } = this.core;
    const report: ReconcileReport = { reason, adopted: [], lost: [], orphans: [], unreachable: [] };
    const prefix = labelPrefix(ledger.installId());
    const live = ledger.listLeases(LIVE_LEASE_STATES);
    for (const provider of providers.all()) {
      if (provider.isConfigured && !provider.isConfigured()) continue;
      const mine = live.filter((l) => l.provider === provider.kind);
      if (mine.length === 0 && !(all && provider.bills)) continue;
      try {
        await this.reconcileProvider(provider, prefix, mine, report);
      } catch (err) {
        report.unreachable.push({ provider: provider.kind, error: (err as Error).message });
      }
    }
    for (const label of report.orphans) {
      if (this.seenOrphans.has(label)) continue;
      this.seenOrphans.add(label);
      ledger.append({
        ts: this.core.now(),
        runId: null,
        nodeId: null,
        kind: 'orphan.seen',
        data: { label, reason },
      });
    }
    return report;
  }

  private async reconcileProvider(
    provider: Provider,
    prefix: string,
    mine: ReturnType<TenderCore['ledger']['listLeases']>,
    report: ReconcileReport,
  ): Promise<void> {
    const { ledger } = this.core;
    const signal = AbortSignal.timeout(60_000);
    const listed = new Map((await provider.listLabeled(prefix, signal)).map((f) => [f.label, f]));
    for (const lease of mine) {
      const facts = listed.get(lease.label);
      const rec = lease.nodeId ? ledger.getNode(lease.nodeId) : undefined;
      if (!rec) continue; // an orphan being destroyed is settled by its own destroy
      if (lease.state === 'requested' && facts) {
        this.deliver(rec.id, provider, { type: 'LeaseFound', lease: facts, endpoint: null });
        report.adopted.push(lease.label);
      } else if (lease.state !== 'requested' && !facts && rec.lease) {
        // A node that destroyed itself (its dead-man switch) says why through what it was told.
        const self = lease.deadMan ? inferSelfTeardown(lease.deadMan, this.core.now()) : null;
        const young = lease.createdAt !== null && this.core.now() - lease.createdAt < LIST_GRACE_MS;
        if (young && !self) continue;
        // Absent from a list is not proof: only the provider saying it is gone is.
        if (!(await provider.isGone(rec.lease.destroyHandle, signal))) continue;
        this.deliver(
          rec.id,
          provider,
          self
            ? { type: 'LeaseLost', reason: self.reason, selfDestroyedAt: self.at }
            : { type: 'LeaseLost', reason: 'the provider no longer lists it' },
        );
        report.lost.push(lease.label);
      }
    }
    const known = new Map(ledger.listLeases().map((l) => [l.label, l.state]));
    for (const label of listed.keys()) {
      const state = known.get(label);
      if (
        state === undefined ||
        state === 'destroyed' ||
        state === 'not_created' ||
        state === 'lost'
      ) {
        report.orphans.push(label);
      }
    }
  }

  /** To the node's manager: the one a run driver here owns, or a short-lived one. */
  private deliver(
    nodeId: string,
    provider: Provider,
    msg: Parameters<NodeManager['send']>[0],
  ): void {
    const owned = this.core.managerOf(nodeId);
    if (owned) return owned.send(msg);
    const rec = this.core.ledger.getNode(nodeId);
    if (!rec) return;
    const m = makeNodeManager(this.core.wiring(), rec, provider);
    m.send(msg);
    m.stop(); // nobody drives this node here: record the fact, start nothing
  }
}
