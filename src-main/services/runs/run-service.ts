import {
  expandSweep,
  sameCell,
  type CellView,
  type CommandArgs,
  type NodePull,
  type SweepCell,
  type RunPlan,
  type RunView,
} from '../../contract';
import { newRunId } from '../../base/ids';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import type { NodeJob } from '../../jobs/node-job/node-job';
import { resolveSecretsFromEnv } from '../../jobs/secrets/redact-job';
import type { RunOutcome } from '../../jobs/run/run-driver';
import type { NodeManager } from '../../nodes/node-manager';
import type { ProviderRegistry } from '../../providers/registry';
import { readDefaults, resolvePolicy } from '../settings/settings-store';
import type { Timing } from '../settings/timing';
import type { LinkState } from '../views/view-builders';
import { runView, type GpuOf } from '../views/view-builders';
import { checkJob } from './job-checks';
import { checkDistributed } from '../../jobs/job-file/job-file-distributed';
import { planRun } from './run-plan';
import { createRunRecords } from './run-records';
import { cellView } from './cell-view';
import { memoizeCells } from './cell-memo';
import { hashCacheFile } from '../../jobs/workspace/hash-cache';
import { RunDrivers, type RunDriversDeps } from './run-drivers';
import type { PoolSecrets } from './pool-secrets';

export interface RunServiceDeps extends RunDriversDeps {
  home: string;
  ledger: Ledger;
  providers: Pick<ProviderRegistry, 'get'>;
  env: NodeJS.ProcessEnv;
  timing: () => Timing;
  requireWriter: () => void;
  crashPoint: (name: string) => void;
  /** The pool's secrets given with a start, for its leases' creates (pool-secrets.ts). */
  poolSecrets?: Pick<PoolSecrets, 'remember'>;
  /** The GPU summary of a node (services/views/gpu-samples.ts), for run views. */
  gpuOf?: GpuOf;
}

/** Runs: start, cancel, attach, detach, and their views. A run is driven by one process at
 *  a time (run-drivers.ts); others see it through the ledger. Every start command comes
 *  through run-start.ts, which has the pre-flight done before `start`. */
export class RunService {
  private readonly drivers: RunDrivers;

  constructor(private readonly d: RunServiceDeps) {
    this.drivers = new RunDrivers(d);
  }

  /** `cells`: a sweep's cells as given (a rerun of the failed ones keeps their ids);
   *  default: the job's `[sweep]` expanded. */
  async start(
    args: CommandArgs<'run.start'>,
    opts: { cells?: SweepCell[] } = {},
  ): Promise<RunView> {
    const { d } = this;
    d.requireWriter();
    const provider = d.providers.get(args.pool.provider);
    const job = resolveSecretsFromEnv(checkJob(args.job), d.env);
    const given = opts.cells ?? (job.sweep ? expandSweep(job.sweep) : undefined);
    // `cache = true` without a sweep: the job is one cell, so that it can be memoized.
    const asCells = given ?? (job.cache ? [{ index: 0, id: 'j0', values: {} }] : undefined);
    const runId = newRunId();
    d.poolSecrets?.remember(runId, args.secrets);
    const cells =
      asCells && job.cache
        ? await memoizeCells(
            { home: d.home, ledger: d.ledger, hashCacheFile: hashCacheFile(d.home), now: d.now },
            { runId, job, pool: args.pool, cells: asCells },
          )
        : asCells;
    // A sweep's nodes serve its cells: no more nodes than cells left to run.
    const toRun = cells?.filter((c) => !('cacheHit' in c && c.cacheHit)).length;
    const shapes = provider.shapeNodes(args.pool).slice(0, toRun ?? Infinity);
    const gang = checkDistributed(job, shapes.length)[0];
    if (gang) throw new TenderError('bad_input', gang.text, gang.hint);
    const policy = resolvePolicy(
      args.keep ? { afterJob: 'keep_warm', ...args.policy } : args.policy,
      readDefaults(d.home),
    );
    const { nodes, passedOver } = createRunRecords(d, {
      runId,
      job,
      args,
      provider: provider.kind,
      shapes,
      policy,
      ...(cells ? { cells } : {}),
    });
    this.drivers.takeOverWarm(nodes, passedOver);
    const keep = args.keep || policy.afterJob === 'keep_warm';
    this.drivers
      .drive({
        runId,
        job,
        keep,
        nodes,
        provider,
        resuming: false,
        freshSetup: args.freshSetup,
      })
      .start();
    return this.view(runId);
  }

  /** What start would do with these nodes (warm claims, new leases), writing nothing. */
  plan(args: CommandArgs<'run.plan'>): RunPlan {
    return planRun(this.d, this.d.providers.get(args.pool.provider), {
      ...args,
      job: checkJob(args.job),
    });
  }

  /** A sweep's cells, in order. */
  cells(runId: string): CellView[] {
    this.view(runId); // not_found when there is no such run
    return this.d.ledger.listCells(runId).map((c) => cellView(this.d.home, c));
  }

  /** Cancels one cell: queued, it never starts; running, its node stops it and goes on. */
  async cancelCell(runId: string, cellId: string): Promise<CellView> {
    this.d.requireWriter();
    const cell = this.cells(runId).find((c) => sameCell(runId, c.id, c.index, cellId));
    if (!cell)
      throw new TenderError(
        'not_found',
        `run ${runId} has no cell ${cellId}`,
        `\`tender status ${runId}\` lists its cells`,
      );
    if (cell.status !== 'queued' && cell.status !== 'running')
      throw new TenderError(
        'conflict',
        `cell ${cell.id} of run ${runId} has already ended (${cell.status})`,
      );
    if (!(await this.drivers.held(runId).cancelCell(cell.id)))
      throw new TenderError(
        'conflict',
        `cell ${cell.id} of run ${runId} is not running on a node this process drives`,
        'try again in a moment, or cancel the whole run',
      );
    return this.cells(runId).find((c) => c.id === cell.id)!;
  }

  /** Resolves when a run driven by this process has ended (teardown included). */
  wait(runId: string): Promise<RunOutcome> {
    // A run with nothing to drive (every cell memoized) may have ended already.
    const run = this.d.ledger.getRun(runId);
    if (!this.drivers.has(runId) && run && run.endedAt !== null && run.status !== 'running')
      return Promise.resolve({ status: run.status, failedReason: run.failedReason });
    return this.drivers.drivenHere(runId).done;
  }

  /** Resolves once the job runs (or has ended) on every node of a run driven here. */
  async waitJobsStarted(runId: string): Promise<void> {
    if (!this.drivers.has(runId) && this.d.ledger.getRun(runId)?.endedAt != null) return;
    await Promise.all([...this.drivers.drivenHere(runId).jobs.values()].map((j) => j.runStarted));
  }

  cancel(runId: string): RunView {
    this.d.requireWriter();
    this.drivers.held(runId).cancel();
    return this.view(runId);
  }

  detach(runId: string): RunView {
    this.d.requireWriter();
    this.drivers.detach(runId);
    return this.view(runId);
  }

  attach(runId: string): RunView {
    this.d.requireWriter();
    if (!this.drivers.has(runId)) this.drivers.attach(runId);
    return this.view(runId);
  }

  view(runId: string): RunView {
    const run = this.d.ledger.getRun(runId);
    if (!run)
      throw new TenderError(
        'not_found',
        `no run ${runId}`,
        'See `tender status` for the runs Tender knows.',
      );
    const d = this.d;
    return runView(d.ledger, run, this.linkState, d.timing(), d.now(), d.gpuOf, this.pullOf);
  }

  list(): RunView[] {
    const timing = this.d.timing();
    return this.d.ledger
      .listRuns()
      .map((r) =>
        runView(this.d.ledger, r, this.linkState, timing, this.d.now(), this.d.gpuOf, this.pullOf),
      );
  }

  isDriven(runId: string): boolean {
    return this.drivers.has(runId);
  }

  /** The NodeManager a run driven by this process holds for a node, if any. */
  managerOf(nodeId: string): NodeManager | undefined {
    return this.drivers.managerOf(nodeId);
  }

  /** The job a run driven by this process runs on a node, if any. */
  jobOf(nodeId: string): NodeJob | undefined {
    return this.drivers.jobOf(nodeId);
  }

  readonly linkState = (nodeId: string): LinkState => this.jobOf(nodeId)?.linkState ?? 'none';

  /** What a provisioning lease's provider says, for a node this process drives. */
  readonly pullOf = (nodeId: string): NodePull | null => this.managerOf(nodeId)?.pull ?? null;

  /** Every run driven here stops its jobs for good (tear down all). */
  abandonAll(reason: string): void {
    this.drivers.abandonAll(reason);
  }

  /** Runs left pending/running by a process that is gone are marked detached: their nodes
   *  keep running until someone attaches or tears them down. */
  markDriverless(): void {
    for (const run of this.d.ledger.listRuns()) {
      if ((run.status === 'pending' || run.status === 'running') && !run.detached) {
        this.d.ledger.updateRun(run.id, { detached: true, driverPid: null }, this.d.now());
      }
    }
  }

  /** Stops driving every run (they keep going on their nodes). */
  close(): void {
    this.drivers.close();
  }
}
