// One node of a sweep serving cells (contract/sweep.ts): while its run phase lasts it takes
// the next queued cell, configures the agent for it (a new job id: the agent gives it a
// clean slate of the pushed workspace), runs it, brings its outputs into
// `runs/<run>/jobs/<cell>/`, writes its receipt and ends it in the ledger, then takes the
// next. Setup ran once on the node before the first cell; its persistent environment is
// looked up again per cell (a cache hit: no command runs, also with setup_cache = false).
import type { Phase, PhaseState } from '../../../src-agent/wire/protocol';
import type { GpuIdleRule, JobSpec } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import type { CellRow } from '../../ledger/cells';
import type { JobLink } from '../node-job/job-link';
import type { PulledOutputs } from '../outputs/pull';
import type { PhaseTracker } from '../link/phase-tracker';
import { configureParams } from '../secrets/job-secrets';
import { pullJobOutputs, type TransferDeps } from '../transfers/job-transfers';
import { cellAfterFailure } from './cell-retry';

/** What the node's job lends the server of its cells. */
export interface CellHost {
  runId: string;
  nodeId: string;
  job: JobSpec;
  /** The node's image, part of its environment's key (host/setup-env-request.ts). */
  image?: string;
  /** The run's GPU idle rule: each cell's run is judged by it on the node. */
  gpuIdle?: GpuIdleRule;
  link(): JobLink;
  phases: PhaseTracker;
  transfers(): TransferDeps;
  /** The node still serves cells: its run phase has not been stopped or lost. */
  isServing(): boolean;
  /** The highest agent seq stored for the node. */
  lastSeq(): number;
  /** Waits until the agent's records so far are stored. */
  drain(link: JobLink): Promise<void>;
  note(line: string): void;
  now(): number;
  onRunStarted(): void;
}

/** What the run lends it: the queue, where a cell's files go, and its receipt. */
export interface SweepWiring {
  ledger: Pick<Ledger, 'takeCell' | 'endCell' | 'getCell' | 'listCells'>;
  cellOutputsDir(cellId: string): string;
  recordCellReceipt(cell: CellRow, facts: CellFacts): void;
  /** A cell changed: the run's view is sent again. */
  onCellChange(): void;
  maxRestarts: number;
  recoverOn: string[];
}

export interface CellFacts {
  status: 'completed' | 'failed' | 'cancelled';
  exitCode: number | null;
  reason: string | null;
  attempt: number;
  pulled: PulledOutputs | null;
}

export class CellServer {
  /** The cell running now (null between cells). */
  private current: CellRow | null = null;
  private cancelAsked = false;
  /** The cell a stop caught: the node's own collection brings its outputs. */
  private stopped: CellRow | null = null;
  served = 0;

  constructor(
    private readonly host: CellHost,
    private readonly w: SweepWiring,
  ) {}

  get currentCell(): CellRow | null {
    return this.current;
  }

  /** Serves cells until the queue is empty or the node stops serving. */
  async serve(): Promise<void> {
    const h = this.host;
    // Picked up after a detach or a crash: the cell this node was running comes first.
    let resumed: CellRow | null =
      this.w.ledger
        .listCells(h.runId)
        .find((c) => c.status === 'running' && c.nodeId === h.nodeId) ?? null;
    while (h.isServing()) {
      const cell = resumed ?? this.w.ledger.takeCell(h.runId, h.nodeId, h.lastSeq() + 1, h.now());
      const isResumed = resumed !== null;
      resumed = null;
      if (!cell) return;
      this.current = cell;
      this.cancelAsked = false;
      this.w.onCellChange();
      const facts = await this.runCell(cell, isResumed).catch((err: Error): CellFacts => ({
        status: 'failed',
        exitCode: null,
        reason: err.message,
        attempt: cell.tries - 1,
        pulled: null,
      }));
      // A stop or a lost node that came while it ran has already settled the cell.
      if (this.stopped === cell) return;
      if (this.current === cell) this.end(cell, facts);
      this.current = null;
      this.served++;
    }
  }

  /** Stops the running cell `cellId`; the node goes on with the next. False: not here. */
  async cancel(cellId: string, graceMs: number): Promise<boolean> {
    if (this.current?.id !== cellId) return false;
    this.cancelAsked = true;
    await this.host.link().request('cancel', { graceMs });
    return true;
  }

  /** The node stopped serving while a cell ran: a stop ends it with the run (cancelled, or
   *  failed with the policy's reason); a lost node's goes back to the queue when the job's
   *  `[recovery]` rules cover the cause and starts are left. Its outputs are then collected
   *  by the node's own collection into the cell's folder (`collectInto`). */
  abandon(
    how:
      | { cause: 'stopped'; reason?: string }
      | { cause: 'node_lost' | 'preempted' | 'fault'; reason: string },
  ): void {
    const cell = this.current;
    if (!cell) return;
    if (how.cause === 'stopped') {
      this.stopped = cell;
      this.end(
        cell,
        {
          status: how.reason ? 'failed' : 'cancelled',
          exitCode: null,
          reason: how.reason ?? 'cancelled',
          attempt: cell.tries - 1,
          pulled: null,
        },
        { keepCurrent: true },
      );
      return;
    }
    const next = cellAfterFailure({
      cause: how.cause,
      tries: cell.tries,
      maxRestarts: this.w.maxRestarts,
      recoverOn: this.w.recoverOn,
    });
    this.settle(
      cell,
      next === 'queued'
        ? { status: 'queued', reason: `${how.reason}: queued again` }
        : { status: 'failed', reason: how.reason },
    );
    this.host.note(
      next === 'queued'
        ? `── ${cell.id} goes back to the queue (${how.reason}) ──`
        : `── ${cell.id} failed: ${how.reason} ──`,
    );
    this.current = null;
  }

  /** The folder a stopped cell's outputs go to (null: no cell was stopped here). */
  collectInto(): { cell: CellRow; dir: string } | null {
    const cell = this.stopped;
    return cell ? { cell, dir: this.w.cellOutputsDir(cell.id) } : null;
  }

  /** After the node's own collection of a stopped cell: its receipt, and it is let go. */
  collected(pulled: PulledOutputs | null): void {
    const cell = this.stopped;
    if (!cell) return;
    const row = this.w.ledger.getCell(cell.runId, cell.id);
    this.w.recordCellReceipt(cell, {
      status: row?.status === 'failed' ? 'failed' : 'cancelled',
      exitCode: row?.exitCode ?? null,
      reason: row?.reason ?? 'cancelled',
      attempt: cell.tries - 1,
      pulled,
    });
    this.stopped = null;
    this.current = null;
  }

  private async runCell(cell: CellRow, isResumed: boolean): Promise<CellFacts> {
    const h = this.host;
    const { job } = h;
    const link = h.link();
    const attempt = cell.tries - 1;
    const values = Object.entries(cell.values)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    h.note(
      `── ${cell.id}${values ? ` (${values})` : ''}${attempt > 0 ? `, start ${attempt + 1}` : ''} ──`,
    );
    const cellJob: JobSpec = { ...job, params: { ...job.params, ...cell.values } };
    await link.request(
      'configure',
      configureParams(`${h.runId}.${cell.id}`, cellJob, {
        attempt,
        image: h.image,
        isCell: true,
        ...(h.gpuIdle ? { gpuIdle: h.gpuIdle } : {}),
      }),
    );
    // A resumed cell's phases are what the agent holds (the same job: nothing cleared).
    h.phases.reset(isResumed ? Object.values((await link.request('status', {})).phases) : []);
    const isRunStarted = isResumed && h.phases.has('run');
    // A persistent environment is chosen per job: looked up again (a hit runs nothing).
    if (!isRunStarted && job.setup !== undefined) {
      const st = await this.runPhase(link, 'setup', job.setup);
      if (st.code !== 0) return this.finish(cell, st, 'setup', null);
    }
    const st = await this.runPhase(link, 'run', job.run);
    await h.drain(link);
    // Stopped meanwhile: the node's collection brings this cell's outputs.
    const pulled = h.isServing() ? await this.pull(cell) : null;
    return this.finish(cell, st, 'run', pulled);
  }

  private async runPhase(link: JobLink, phase: Phase, command: string): Promise<PhaseState> {
    const exited = this.host.phases.exited(phase);
    await link.request('start', { phase, command });
    if (phase === 'run') this.host.onRunStarted();
    return exited;
  }

  private async pull(cell: CellRow): Promise<PulledOutputs | null> {
    if (this.host.job.outputs.length === 0) return null;
    let pulled: PulledOutputs | null = null;
    await pullJobOutputs(
      this.host.transfers(),
      this.host.job.outputs,
      this.w.cellOutputsDir(cell.id),
      (p) => {
        pulled = p;
      },
    );
    return pulled;
  }

  private finish(
    cell: CellRow,
    st: PhaseState,
    phase: Phase,
    pulled: PulledOutputs | null,
  ): CellFacts {
    const code = st.code;
    const exit = code !== null ? `exited ${code}` : `killed by ${st.signal ?? 'a signal'}`;
    if (this.cancelAsked) {
      return {
        status: 'cancelled',
        exitCode: code,
        reason: 'cancelled',
        attempt: cell.tries - 1,
        pulled,
      };
    }
    return code === 0
      ? { status: 'completed', exitCode: 0, reason: null, attempt: cell.tries - 1, pulled }
      : {
          status: 'failed',
          exitCode: code,
          // Stopped by the node on the GPU idle rule: its words, as for a job.
          reason: st.stoppedBy ?? `${phase} ${exit}`,
          attempt: cell.tries - 1,
          pulled,
        };
  }

  /** A cell's end: a failed exit may go back to the queue (`exit_code:N` in `[recovery]`). */
  private end(cell: CellRow, facts: CellFacts, opts: { keepCurrent?: boolean } = {}): void {
    const again =
      facts.status === 'failed' && facts.exitCode !== null
        ? cellAfterFailure({
            cause: `exit_code:${facts.exitCode}`,
            tries: cell.tries,
            maxRestarts: this.w.maxRestarts,
            recoverOn: this.w.recoverOn,
          }) === 'queued'
        : false;
    if (again) {
      this.settle(cell, { status: 'queued', reason: `${facts.reason}: queued again` });
      this.host.note(`── ${cell.id} ${facts.reason}: back to the queue ──`);
      return;
    }
    this.settle(cell, { status: facts.status, exitCode: facts.exitCode, reason: facts.reason });
    this.host.note(`── ${cell.id} ${facts.status}${facts.reason ? `: ${facts.reason}` : ''} ──`);
    if (!opts.keepCurrent) this.w.recordCellReceipt(cell, facts);
  }

  private settle(
    cell: CellRow,
    end: {
      status: 'queued' | 'completed' | 'failed' | 'cancelled';
      exitCode?: number | null;
      reason: string | null;
    },
  ): void {
    const h = this.host;
    this.w.ledger.endCell(h.runId, cell.id, h.nodeId, { ...end, seqTo: h.lastSeq() }, h.now());
    this.w.onCellChange();
  }
}
