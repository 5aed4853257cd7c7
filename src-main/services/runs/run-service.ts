import { requireConfigured } from './provider-ready';
import {
  PoolSpec,
  expandSweep,
  sameCell,
  type CellView,
  type CommandArgs,
  type CommandOutput,
  type SweepCell,
  type JobSpec,
  type RunPlan,
  type RunView,
} from '../../contract';
import { newRunId } from '../../base/ids';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import type { NodeJob } from '../../jobs/node-job';
import { REDACTED, resolveSecretsFromEnv } from '../../jobs/redact-job';
import type { RunDriver, RunOutcome } from '../../jobs/run-driver';
import type { NodeManager } from '../../nodes/node-manager';
import type { NodeRecord } from '../../ledger/node-record';
import type { ProviderRegistry } from '../../providers/registry';
import { readDefaults, resolvePolicy } from '../settings/settings-store';
import type { Timing } from '../settings/timing';
import type { LinkState } from '../views/view-builders';
import { runView, type GpuOf } from '../views/view-builders';
import { checkJob } from './job-checks';
import { checkDistributed } from '../../jobs/job-file-distributed';
import { assembleRun, type RunAssemblyDeps, type RunToAssemble } from './run-assembly';
import { planRun } from './run-plan';
import { createRunRecords } from './run-records';
import { cellView } from './cell-view';
import { memoizeCells } from './cell-memo';
import { diffWorkspace, receiptJob, receiptRun } from './receipt-rerun';
import { hashCacheFile } from '../../jobs/workspace/hash-cache';

export interface RunServiceDeps extends Omit<RunAssemblyDeps, 'guardEveryMs'> {
  home: string;
  ledger: Ledger;
  providers: Pick<ProviderRegistry, 'get'>;
  env: NodeJS.ProcessEnv;
  timing: () => Timing;
  requireWriter: () => void;
  crashPoint: (name: string) => void;
  /** The GPU summary of a node (services/views/gpu-samples.ts), for run views. */
  gpuOf?: GpuOf;
}

/** Runs: start, cancel, attach, detach, and the registry of the run drivers this process
 *  holds. A run is driven by one process at a time; others see it through the ledger. */
export class RunService {
  private readonly drivers = new Map<string, RunDriver>();
  /** Each driven run's policy guard, stopped when its driver ends or is dropped. */
  private readonly guards = new Map<string, () => void>();
  /** Jobs whose run ended with their node kept warm, by node: their links stay up until
   *  close, or until a later run claims the node. */
  private readonly warmJobs = new Map<string, { job: NodeJob; manager: NodeManager }>();

  constructor(private readonly d: RunServiceDeps) {}

  /** `cells`: a sweep's cells as given (a rerun of the failed ones keeps their ids);
   *  default: the job's `[sweep]` expanded. */
  async start(
    args: CommandArgs<'run.start'>,
    opts: { cells?: SweepCell[] } = {},
  ): Promise<RunView> {
    const { d } = this;
    d.requireWriter();
    const provider = d.providers.get(args.pool.provider);
    requireConfigured(provider);
    const job = resolveSecretsFromEnv(checkJob(args.job), d.env);
    const given = opts.cells ?? (job.sweep ? expandSweep(job.sweep) : undefined);
    // `cache = true` without a sweep: the job is one cell, so that it can be memoized.
    const asCells = given ?? (job.cache ? [{ index: 0, id: 'j0', values: {} }] : undefined);
    const runId = newRunId();
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
    this.takeOverWarm(nodes, passedOver);
    const keep = args.keep || policy.afterJob === 'keep_warm';
    this.drive({
      runId,
      job,
      keep,
      nodes,
      provider,
      resuming: false,
      freshSetup: args.freshSetup,
    }).start();
    return this.view(runId);
  }

  /** What start would do with these nodes (warm claims, new leases), writing nothing. */
  plan(args: CommandArgs<'run.plan'>): RunPlan {
    return planRun(this.d, this.d.providers.get(args.pool.provider), {
      ...args,
      job: checkJob(args.job),
    });
  }

  /** Starts the job and pool of an earlier run again, warm nodes first. */
  rerun(args: CommandArgs<'run.rerun'>): Promise<RunView> {
    const run = this.d.ledger.getRun(args.runId);
    if (!run)
      throw new TenderError(
        'not_found',
        `no run ${args.runId}`,
        'See `tender status` for the runs Tender knows.',
      );
    const stored = this.d.ledger.jobSpec(run.jobId);
    const cells = args.failed ? this.failedCells(run.id) : undefined;
    return this.start(
      {
        job: withSecrets(stored, args.secrets, run.id),
        pool: PoolSpec.parse(run.pool),
        keep: run.keep,
        policy: run.policy ?? {},
        source: run.source ?? undefined,
        freshSetup: args.freshSetup,
        reuseWarm: args.reuseWarm,
      },
      cells ? { cells } : {},
    );
  }

  /** A receipt's job again, as one job; the workspace diffed against what it was given. */
  async fromReceipt(
    args: CommandArgs<'run.fromReceipt'>,
  ): Promise<CommandOutput<'run.fromReceipt'>> {
    const run = receiptRun(this.d.ledger, args.receipt);
    const stored = this.d.ledger.jobSpec(run.jobId);
    const job = receiptJob(withSecrets(stored, args.secrets, run.id), args.receipt);
    const workspace = await diffWorkspace(
      this.d.home,
      job,
      args.receipt,
      hashCacheFile(this.d.home),
    );
    const view = await this.start({
      job,
      pool: { ...PoolSpec.parse(run.pool), count: 1 },
      keep: run.keep,
      policy: run.policy ?? {},
      source: run.source ?? undefined,
      freshSetup: args.freshSetup,
      reuseWarm: args.reuseWarm,
    });
    return { run: view, workspace };
  }

  /** A sweep's cells that failed or were cancelled, with their ids and values. */
  private failedCells(runId: string): SweepCell[] {
    const all = this.d.ledger.listCells(runId);
    if (all.length === 0)
      throw new TenderError(
        'bad_input',
        `run ${runId} is no sweep: --failed reruns a sweep's failed cells`,
        `rerun it whole: \`tender rerun ${runId}\``,
      );
    const failed = all.filter((c) => c.status === 'failed' || c.status === 'cancelled');
    if (failed.length === 0)
      throw new TenderError(
        'conflict',
        `every cell of run ${runId} ${all.some((c) => c.status === 'queued' || c.status === 'running') ? 'that has ended ' : ''}completed: none to rerun`,
        `rerun it whole: \`tender rerun ${runId}\``,
      );
    return failed.map((c) => ({ index: c.index, id: c.id, values: c.values }));
  }

  /** A sweep's cells, in order. */
  cells(runId: string): CellView[] {
    this.view(runId); // not_found when there is no such run
    return this.d.ledger.listCells(runId).map((c) => cellView(this.d.home, c));
  }

  /** Cancels one cell: queued, it never starts; running, its node stops it and goes on. */
  async cancelCell(runId: string, jobId: string): Promise<CellView> {
    this.d.requireWriter();
    const cell = this.cells(runId).find((c) => sameCell(runId, c.id, c.index, jobId));
    if (!cell)
      throw new TenderError(
        'not_found',
        `run ${runId} has no cell ${jobId}`,
        `\`tender status ${runId}\` lists its cells`,
      );
    if (cell.status !== 'queued' && cell.status !== 'running')
      throw new TenderError(
        'conflict',
        `cell ${cell.id} of run ${runId} has already ended (${cell.status})`,
      );
    const driver = this.drivers.get(runId) ?? this.attachDriver(runId);
    if (!(await driver.cancelCell(cell.id)))
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
    return this.drivenHere(runId).done;
  }

  /** Resolves once the job runs (or has ended) on every node of a run driven here. */
  async waitJobsStarted(runId: string): Promise<void> {
    if (!this.drivers.has(runId) && this.d.ledger.getRun(runId)?.endedAt != null) return;
    await Promise.all([...this.drivenHere(runId).jobs.values()].map((j) => j.runStarted));
  }

  cancel(runId: string): RunView {
    this.d.requireWriter();
    (this.drivers.get(runId) ?? this.attachDriver(runId)).cancel();
    return this.view(runId);
  }

  detach(runId: string): RunView {
    this.d.requireWriter();
    const driver = this.drivers.get(runId);
    if (driver) {
      driver.detach();
      this.forget(runId);
    }
    return this.view(runId);
  }

  attach(runId: string): RunView {
    this.d.requireWriter();
    if (!this.drivers.has(runId)) this.attachDriver(runId);
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
    return runView(this.d.ledger, run, this.linkState, this.d.timing(), this.d.now(), this.d.gpuOf);
  }

  list(): RunView[] {
    const timing = this.d.timing();
    return this.d.ledger
      .listRuns()
      .map((r) => runView(this.d.ledger, r, this.linkState, timing, this.d.now(), this.d.gpuOf));
  }

  isDriven(runId: string): boolean {
    return this.drivers.has(runId);
  }

  /** The NodeManager a run driven by this process holds for a node, if any. */
  managerOf(nodeId: string): NodeManager | undefined {
    for (const d of this.drivers.values()) {
      const m = d.managers.get(nodeId);
      if (m) return m;
    }
    return undefined;
  }

  /** The job a run driven by this process runs on a node, if any. */
  jobOf(nodeId: string): NodeJob | undefined {
    for (const d of this.drivers.values()) {
      const j = d.jobs.get(nodeId);
      if (j) return j;
    }
    return undefined;
  }

  readonly linkState = (nodeId: string): LinkState => this.jobOf(nodeId)?.linkState ?? 'none';

  /** Every run driven here stops its jobs for good (tear down all). */
  abandonAll(reason: string): void {
    for (const d of this.drivers.values()) d.abandon(reason);
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
    for (const [id, d] of this.drivers) {
      d.detach();
      this.forget(id);
    }
    for (const w of this.warmJobs.values()) w.job.detach();
    this.warmJobs.clear();
  }

  /** The claimed warm nodes' old jobs stop acting here (their renewals, their link): the
   *  new run's jobs hold the leases now. Notes say why other warm nodes were passed over. */
  private takeOverWarm(nodes: NodeRecord[], passedOver: string[]): void {
    for (const n of nodes) {
      const from = n.claimedFrom?.nodeId;
      const held = from ? this.warmJobs.get(from) : undefined;
      if (!held) continue;
      held.job.detach();
      this.d.factory.release(held.manager);
      this.warmJobs.delete(from!);
    }
    for (const n of nodes) {
      const lines = n.claimedFrom
        ? [
            `reusing warm node ${n.lease?.leaseId ?? n.label} (kept by run ${n.claimedFrom.runId}): no create, no bootstrap`,
          ]
        : passedOver.map((line) => `renting a new node: ${line}`);
      for (const line of lines)
        this.d.datastream.append(n.id, 'events', {
          source: 'event',
          stream: 'info',
          line,
          ts: this.d.now(),
        });
    }
  }

  /** Drops a driver and stops its guard: a detached run's guard must not outlive it (its
   *  `done` never resolves here, and the ledger may close). */
  private forget(runId: string): void {
    this.guards.get(runId)?.();
    this.guards.delete(runId);
    this.drivers.delete(runId);
  }

  private drivenHere(runId: string): RunDriver {
    const d = this.drivers.get(runId);
    if (!d) throw new TenderError('conflict', `run ${runId} is not being driven by this process`);
    return d;
  }

  private attachDriver(runId: string): RunDriver {
    const { ledger } = this.d;
    const run = ledger.getRun(runId);
    if (!run) throw new TenderError('not_found', `no run ${runId}`);
    const nodes = ledger.nodesOfRun(runId);
    const unfinished = nodes.some((n) => ledger.getAttempt(n.id)?.phase !== 'done');
    if (!unfinished)
      throw new TenderError('conflict', `run ${runId} has already ended (${run.status})`);
    const driver = this.drive({
      runId,
      job: ledger.jobSpec(run.jobId),
      keep: run.keep || run.policy?.afterJob === 'keep_warm',
      nodes,
      provider: this.d.providers.get(run.provider),
      resuming: true,
      freshSetup: false, // a setup already started is not started again
    });
    driver.resume();
    return driver;
  }

  private drive(r: RunToAssemble): RunDriver {
    const { driver, stopGuard } = assembleRun(
      { ...this.d, guardEveryMs: this.d.timing().guardEveryMs },
      r,
    );
    this.drivers.set(r.runId, driver);
    this.guards.set(r.runId, stopGuard);
    void driver.done.then(() => {
      if (this.drivers.get(r.runId) === driver) this.forget(r.runId);
      else stopGuard();
      for (const [id, job] of driver.jobs) {
        const manager = driver.managers.get(id);
        // Nodes kept warm keep their link (and their switch renewed) while this process runs.
        if (manager && manager.record.stage !== 'destroyed')
          this.warmJobs.set(id, { job, manager });
        // A long-lived app keeps only managers with something left to do (a destroy retrying).
        else if (manager) this.d.factory.release(manager);
      }
    });
    return driver;
  }
}

/** The stored job (secrets redacted) with its secrets given again by name. */
function withSecrets(job: JobSpec, secrets: Record<string, string>, runId: string): JobSpec {
  const env: JobSpec['env'] = {};
  for (const [name, value] of Object.entries(job.env)) {
    if (typeof value === 'string' || !('value' in value) || value.value !== REDACTED) {
      env[name] = value;
      continue;
    }
    const given = secrets[name];
    if (given === undefined)
      throw new TenderError(
        'bad_input',
        `run ${runId} had the secret ${name}, which Tender does not keep`,
        `rerun it from its job file (\`tender rerun\` reads secrets from it when it is still there), or give it with --secret ${name}=…`,
      );
    env[name] = { secret: true, value: given };
  }
  return { ...job, env };
}
