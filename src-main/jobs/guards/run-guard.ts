import { BUDGET_WARNING } from '../../contract/billing';
import { formatDuration, type LeasePolicy } from '../../contract/policy';
import type { Ledger } from '../../ledger/ledger';
import { summarize } from '../../money/cost';

export interface RunGuardDeps {
  runId: string;
  policy: LeasePolicy;
  ledger: Ledger;
  now(): number;
  everyMs: number;
  /** Asks the providers what is really there (after a wake, before acting on a deadline
   *  computed here: a node may have destroyed itself meanwhile). */
  recheck(): Promise<unknown>;
  /** Stops a node's job (outputs collected best effort, then teardown), with the reason. */
  stopNode(nodeId: string, reason: string): void;
  /** A line in every node's event stream (what the CLI and the UI show). */
  note(line: string): void;
  onChange(): void;
}

/**
 * The app's half of a run's policy (the node enforces it too, by its dead-man switch): warns
 * at 80% of the budget and stops the run when it is spent; stops a node whose lease reached
 * its max duration. Timers that fire far later than asked mean the machine slept: the
 * providers are asked first, so a deadline is never acted on against a stale picture.
 */
export class RunGuard {
  private timer: NodeJS.Timeout | null = null;
  private lastTick: number;
  private warned = false;
  private reached = false;
  private readonly stopped = new Set<string>();
  private busy = false;

  constructor(private readonly deps: RunGuardDeps) {
    this.lastTick = deps.now();
  }

  start(): void {
    const { policy } = this.deps;
    if (policy.budgetUsd === null && policy.maxDurationMs === null) return;
    this.timer = setInterval(() => void this.tick(), this.deps.everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const now = this.deps.now();
      const slept = now - this.lastTick > 3 * this.deps.everyMs;
      this.lastTick = now;
      if (slept) await this.deps.recheck().catch(() => {});
      this.check(this.deps.now());
    } finally {
      this.busy = false;
    }
  }

  private check(now: number): void {
    const { policy, ledger, runId } = this.deps;
    const leases = ledger.leasesOfRun(runId);
    if (policy.budgetUsd !== null) {
      const spent = summarize(leases, now).accruedUsd;
      const text = `$${spent.toFixed(4)} of $${policy.budgetUsd.toFixed(2)}`;
      if (!this.warned && spent >= BUDGET_WARNING * policy.budgetUsd) {
        this.warned = true;
        this.journal('run.budget_warning', { spentUsd: spent, budgetUsd: policy.budgetUsd });
        this.deps.note(
          `warning: this run has spent ${Math.round((spent / policy.budgetUsd) * 100)}% of its budget (${text})`,
        );
        this.deps.onChange();
      }
      if (!this.reached && spent >= policy.budgetUsd) {
        this.reached = true;
        const reason = `budget reached (${text})`;
        this.journal('run.budget_reached', { spentUsd: spent, budgetUsd: policy.budgetUsd });
        for (const l of leases) if (l.nodeId) this.stopOnce(l.nodeId, reason);
        this.deps.onChange();
      }
    }
    if (policy.maxDurationMs !== null) {
      for (const l of leases) {
        if (!l.nodeId || l.createdAt === null || l.state !== 'created') continue;
        if (now - l.createdAt >= policy.maxDurationMs) {
          this.stopOnce(l.nodeId, `max duration ${formatDuration(policy.maxDurationMs)} reached`);
        }
      }
    }
  }

  private stopOnce(nodeId: string, reason: string): void {
    if (this.stopped.has(nodeId)) return;
    this.stopped.add(nodeId);
    this.journal('run.policy_stop', { nodeId, reason });
    this.deps.stopNode(nodeId, reason);
  }

  private journal(kind: string, data: Record<string, unknown>): void {
    this.deps.ledger.append({
      ts: this.deps.now(),
      runId: this.deps.runId,
      nodeId: null,
      kind,
      data,
    });
  }
}
