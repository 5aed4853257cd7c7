import type { JobStatus } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import type { NodeManager } from '../../nodes/node-manager';
import type { NodeJob } from '../node-job/node-job';
import { sweepOutcome } from '../sweep/sweep-outcome';

export interface RunOutcome {
  status: JobStatus;
  failedReason: string | null;
}

/** Drives one run: its node managers and the job on each node. The run is completed when
 *  every node's job completed; otherwise failed with the first node's reason. A sweep's
 *  outcome is its cells' (sweep/sweep-outcome.ts), once every node has stopped serving. */
export class RunDriver {
  readonly done: Promise<RunOutcome>;
  private isCancelled = false;

  constructor(
    readonly runId: string,
    readonly managers: Map<string, NodeManager>,
    readonly jobs: Map<string, NodeJob>,
    private readonly ledger: Ledger,
    private readonly now: () => number,
    private readonly onRunChange: () => void,
    private readonly opts: {
      /** The outcome is the sweep's cells'. */
      isSweep?: boolean;
      /** A distributed run's gang decides the outcome when it has (its stop rule). */
      decide?: () => RunOutcome | null;
    } = {},
  ) {
    this.done = this.aggregate();
  }

  start(): void {
    this.ledger.updateRun(
      this.runId,
      { status: 'running', detached: false, driverPid: process.pid },
      this.now(),
    );
    this.onRunChange();
    for (const job of this.jobs.values()) job.start();
  }

  resume(): void {
    this.ledger.updateRun(this.runId, { detached: false, driverPid: process.pid }, this.now());
    this.onRunChange();
    for (const job of this.jobs.values()) job.resume();
  }

  cancel(): void {
    this.isCancelled = true;
    if (this.opts.isSweep)
      this.ledger.endQueuedCells(this.runId, 'cancelled', 'cancelled', this.now());
    for (const job of this.jobs.values()) job.stop();
  }

  /** Cancels one cell of a sweep: a queued one is never started; a running one is stopped
   *  on its node, which goes on with the next. False: the cell has already ended. */
  async cancelCell(cellId: string): Promise<boolean> {
    if (this.ledger.cancelQueuedCell(this.runId, cellId, this.now())) {
      this.onRunChange();
      return true;
    }
    for (const job of this.jobs.values()) if (await job.cancelCell(cellId)) return true;
    return false;
  }

  abandon(reason: string): void {
    for (const job of this.jobs.values()) job.abandon(reason);
  }

  /** Leaves the nodes and their jobs running; another process may pick them up. */
  detach(): void {
    for (const job of this.jobs.values()) job.detach();
    for (const m of this.managers.values()) m.stop();
    this.ledger.updateRun(this.runId, { detached: true, driverPid: null }, this.now());
    this.onRunChange();
  }

  /** Every node has stopped serving: cells still queued had no node left to run them. */
  private sweepOutcome(nodeReason: string | null): RunOutcome {
    this.ledger.endQueuedCells(
      this.runId,
      this.isCancelled ? 'cancelled' : 'failed',
      this.isCancelled
        ? 'cancelled'
        : `no node left to run it${nodeReason ? ` (${nodeReason})` : ''}`,
      this.now(),
    );
    return sweepOutcome(this.ledger.listCells(this.runId), this.isCancelled);
  }

  private async aggregate(): Promise<RunOutcome> {
    const states = await Promise.all(
      [...this.jobs.entries()].map(async ([id, j]) => [id, await j.done] as const),
    );
    // Completed when every node completed; cancelled when the rest were cancelled by the
    // user; otherwise failed, with the first failed node's reason.
    const ended = states.filter(([, s]) => s.status !== 'completed');
    const failed = ended.find(([, s]) => s.status !== 'cancelled') ?? ended[0];
    const outcome: RunOutcome = this.opts.isSweep
      ? this.sweepOutcome(failed?.[1].reason ?? null)
      : (this.opts.decide?.() ??
        (failed
          ? {
              status: failed[1].status === 'cancelled' ? 'cancelled' : 'failed',
              failedReason: `${failed[0].split('/').pop()}: ${failed[1].reason ?? 'failed'}`,
            }
          : { status: 'completed', failedReason: null }));
    this.ledger.updateRun(
      this.runId,
      {
        status: outcome.status,
        failedReason: outcome.failedReason,
        endedAt: this.now(),
        driverPid: null,
      },
      this.now(),
    );
    this.onRunChange();
    return outcome;
  }
}
