import { join } from 'node:path';
import { createInProcessClient, type TenderClient } from '../api/in-process';
import type { Handlers } from '../api/dispatch';
import type { CommandArgs, RunView } from '../contract';
import { Datastream } from '../datastream/datastream';
import { checkOutputs, resolveWorkdir } from '../jobs/job-file-paths';
import { checkName, checkParams } from '../jobs/job-file-env';
import { redactJob, resolveSecretsFromEnv } from '../jobs/redact-job';
import { RunDriver, type RunOutcome } from '../jobs/run-driver';
import { scanWorkspace } from '../jobs/workspace/scan';
import type { PushPlan } from '../jobs/workspace/push';
import { Ledger } from '../ledger/ledger';
import type { NodeJob } from '../jobs/node-job';
import { RunGuard } from '../jobs/run-guard';
import type { NodeManager } from '../nodes/node-manager';
import { newNodeRecord, type NodeRecord } from '../nodes/node-record';
import { LocalProvider } from '../providers/local/local-provider';
import { endpointOf, SshProvider } from '../providers/ssh/ssh-provider';
import { failedHostsPath } from '../providers/vastai/failed-hosts';
import { VastProvider } from '../providers/vastai/provider';
import { ensureTenderKey } from '../transport/keys';
import { findHost } from '../providers/ssh/hosts-file';
import { sshConnector, type SshEndpoint } from './ssh-connect';
import type { Provider } from '../providers/provider';
import { ProviderRegistry } from '../providers/registry';
import { loadAgentBundle, type AgentBundle } from './agent-bundle';
import { runtimeLookup } from './runtime-bundle';
import { EventBus } from '../base/event-bus';
import { makeHandlers } from './handlers';
import { hostKey } from './host-key';
import { leaseLabel, newRunId } from '../base/ids';
import { makeNodeJob, makeNodeManager, type WiringContext } from './node-wiring';
import { homePaths } from '../base/paths';
import { DEFAULT_TIMING, type Timing } from './settings';
import { NodeManifestMemory, nodeManifestDir } from '../jobs/workspace/node-manifest-memory';
import { WorkspaceSessions } from '../jobs/workspace/session-pool';
import { Reconciler } from './reconciler';
import { Terminals } from './terminals';
import { FileSecretStore, secretOrEnv, type SecretStore } from './secret-store';
import { readDefaults, resolvePolicy } from './settings-store';
import { TenderError } from '../base/tender-error';
import { leaseView, runView, nodeView } from './views';

export interface ProviderDeps {
  home: string;
  now: () => number;
  ledger: Ledger;
  env: NodeJS.ProcessEnv;
  secrets: SecretStore;
}

/** local (a sandbox folder on this machine) and ssh (machines in hosts.toml). */
export function defaultProviders(d: ProviderDeps): Provider[] {
  return [
    new LocalProvider(d.home, d.now),
    new VastProvider({
      // The OS keychain in the app, a 0600 file otherwise, then TENDER_VASTAI_API_KEY; read at
      // each use, so a key set in Settings works at once.
      apiKey: () => secretOrEnv(d.secrets, 'vastaiApiKey', d.env).value ?? '',
      baseUrl: d.env.TENDER_VASTAI_URL || undefined,
      publicKey: () => ensureTenderKey(d.home).publicKey,
      failedHostsPath: failedHostsPath(d.home),
      now: d.now,
    }),
    new SshProvider(d.home, (host, signal) =>
      sshConnector(endpointOf(host) as SshEndpoint, d, 60_000)(signal),
    ),
  ];
}

export interface CoreOptions {
  home: string;
  now?: () => number;
  providers?: (deps: ProviderDeps) => Provider[];
  timing?: Partial<Timing>;
  env?: NodeJS.ProcessEnv;
  /** Reconcile with the providers at start and periodically (writer only; default on). */
  reconcile?: boolean;
  /** Provider keys: the OS keychain in the app; a 0600 file otherwise. */
  secrets?: SecretStore;
  /** What only a desktop shell can do (native folder picker, open a folder). */
  hooks?: CoreHooks;
}

export interface CoreHooks {
  pickFolder?: () => Promise<string | null>;
  openPath?: (path: string) => Promise<void>;
}

/** The orchestrator: wires the ledger, the providers, node managers, jobs and the
 *  datastream, and serves the contract. One writer per data folder; a second process gets
 *  a read-only core (status and logs) or a clear "already running". */
export class TenderCore {
  readonly bus = new EventBus();
  readonly datastream: Datastream;
  readonly providers: ProviderRegistry;
  readonly handlers: Handlers;
  readonly client: TenderClient;
  readonly now: () => number;
  readonly drivers = new Map<string, RunDriver>();
  private readonly managers = new Set<NodeManager>();
  /** Jobs whose run ended with their node kept warm: their links stay up until close. */
  private readonly warmJobs = new Set<NodeJob>();
  private readonly manifestMemory: NodeManifestMemory;
  readonly terminals: Terminals;
  readonly workspaceSessions = new WorkspaceSessions();
  reconciler: Reconciler | null = null;
  private bundle: AgentBundle | null = null;
  timing: Timing;
  readonly env: NodeJS.ProcessEnv;
  readonly hooks: CoreHooks;
  readonly secrets: SecretStore;

  private constructor(
    readonly home: string,
    readonly ledger: Ledger,
    readonly isWriter: boolean,
    private readonly opts: CoreOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.env = opts.env ?? process.env;
    this.hooks = opts.hooks ?? {};
    this.secrets = opts.secrets ?? new FileSecretStore(home);
    this.timing = this.timingWithDefaults();
    this.datastream = new Datastream(homePaths(home).datastream, (records) =>
      this.bus.emit('log.lines', { records }),
    );
    ledger.onLeaseChange((label) => {
      const row = this.ledger.getLease(label);
      if (!row) return;
      this.bus.emit('lease.changed', leaseView(row, this.now()));
      // A node going away takes its workspace session (and that process on it) along.
      if (row.nodeId && row.state !== 'requested' && row.state !== 'created') {
        void this.workspaceSessions.closeNode(row.nodeId);
      }
      // A run's cost and burn rate move with its leases.
      if (row.runId && this.ledger.getRun(row.runId)) this.emitRun(row.runId);
    });
    this.providers = new ProviderRegistry(
      (opts.providers ?? defaultProviders)({
        home,
        now: this.now,
        ledger,
        env: this.env,
        secrets: this.secrets,
      }),
    );
    this.manifestMemory = new NodeManifestMemory(nodeManifestDir(home));
    this.terminals = new Terminals(this.bus, (rec) => {
      if (rec.connection?.kind !== 'ssh') throw new TenderError('internal', 'not an ssh node');
      return sshConnector(rec.connection, { home, ledger, now: this.now }, 60_000);
    });
    this.handlers = makeHandlers(this);
    this.client = createInProcessClient(this.handlers, this.bus);
  }

  static open(opts: CoreOptions): TenderCore {
    const core = new TenderCore(opts.home, Ledger.openWriter(opts.home), true, opts);
    core.markDriverlessRuns();
    core.reconciler = new Reconciler(core, core.timing.reconcileEveryMs);
    if (opts.reconcile !== false) core.reconciler.start();
    return core;
  }

  /** Read-only alongside a writer; null when there is no ledger yet. */
  static openReadonly(opts: CoreOptions): TenderCore | null {
    const ledger = Ledger.openReader(opts.home);
    return ledger && new TenderCore(opts.home, ledger, false, opts);
  }

  /** Opens as writer, or read-only when another process is the writer. */
  static openAny(opts: CoreOptions): TenderCore | null {
    try {
      return TenderCore.open(opts);
    } catch (err) {
      if (err instanceof TenderError && err.code === 'busy') return TenderCore.openReadonly(opts);
      throw err;
    }
  }

  /** Built-in timing, then the Settings defaults, then what the caller passed (tests). */
  private timingWithDefaults(): Timing {
    const d = readDefaults(this.home);
    const fromSettings: Partial<Timing> = {
      deadlines: { ...DEFAULT_TIMING.deadlines, connectMs: d.connectDeadlineMin * 60_000 },
      endpointDeadlineMs: d.endpointDeadlineMin * 60_000,
      maxBootAttempts: d.maxBootAttempts,
      cancelGraceMs: d.cancelGraceSec * 1_000,
    };
    return { ...DEFAULT_TIMING, ...fromSettings, ...this.opts.timing };
  }

  /** Settings changed: later runs use the new defaults. */
  applyDefaults(): void {
    this.timing = this.timingWithDefaults();
  }

  requireWriter(): void {
    if (this.isWriter) return;
    // Re-acquiring shows who holds the lock, in the standard words.
    Ledger.openWriter(this.home).close();
  }

  // ── runs ──────────────────────────────────────────────────────────────────────────────

  async startRun(args: CommandArgs<'run.start'>): Promise<RunView> {
    this.requireWriter();
    const provider = this.providers.get(args.pool.provider);
    const job = resolveSecretsFromEnv(validateJob(args.job), this.env);
    const shapes = nodeShapes(this.home, provider.kind, args.pool);
    const policy = resolvePolicy(
      args.keep ? { afterJob: 'keep_warm', ...args.policy } : args.policy,
      readDefaults(this.home),
    );
    const runId = newRunId();
    const install = this.ledger.installId();
    const now = this.now();
    const nodes: NodeRecord[] = [];
    for (const [i, shape] of shapes.entries()) {
      const logicalId = `node-${i}`;
      nodes.push(
        newNodeRecord({
          runId,
          logicalId,
          groupId: 'nodes',
          role: 'worker',
          label: leaseLabel(install, runId, logicalId),
          desired: {
            provider: provider.kind,
            shape,
            verify: args.pool.verify,
            hostKey: hostKey({ runner: 'tender-agent', provider: provider.kind }),
          },
          now,
        }),
      );
    }
    this.ledger.createRun(
      {
        id: runId,
        jobId: runId,
        jobName: job.name,
        jobSpec: redactJob(job),
        source: args.source ?? null,
        provider: provider.kind,
        count: shapes.length,
        pool: args.pool,
        keep: args.keep,
        outputsDir: join(homePaths(this.home).runs, runId),
        policy,
      },
      nodes,
      now,
    );
    const driver = this.makeDriver(
      runId,
      job,
      args.keep || policy.afterJob === 'keep_warm',
      nodes,
      provider,
    );
    driver.start();
    return this.runView(runId);
  }

  /** Resolves when a run driven by this process has ended (teardown included). */
  waitRun(runId: string): Promise<RunOutcome> {
    const d = this.drivers.get(runId);
    if (!d) throw new TenderError('conflict', `run ${runId} is not being driven by this process`);
    return d.done;
  }

  /** Resolves once the job runs (or has ended) on every node of a run driven here. */
  async waitJobsStarted(runId: string): Promise<void> {
    const d = this.drivers.get(runId);
    if (!d) throw new TenderError('conflict', `run ${runId} is not being driven by this process`);
    await Promise.all([...d.jobs.values()].map((j) => j.runStarted));
  }

  cancelRun(runId: string): RunView {
    this.requireWriter();
    const d = this.drivers.get(runId) ?? this.attachDriver(runId);
    d.cancel();
    return this.runView(runId);
  }

  detachRun(runId: string): RunView {
    this.requireWriter();
    const d = this.drivers.get(runId);
    if (d) {
      d.detach();
      this.drivers.delete(runId);
    }
    return this.runView(runId);
  }

  attachRun(runId: string): RunView {
    this.requireWriter();
    if (!this.drivers.has(runId)) this.attachDriver(runId);
    return this.runView(runId);
  }

  runView(runId: string): RunView {
    const run = this.ledger.getRun(runId);
    if (!run)
      throw new TenderError(
        'not_found',
        `no run ${runId}`,
        'See `tender status` for the runs Tender knows.',
      );
    return runView(this.ledger, run, (id) => this.linkState(id), this.timing, this.now());
  }

  listRuns(): RunView[] {
    return this.ledger
      .listRuns()
      .map((r) => runView(this.ledger, r, (id) => this.linkState(id), this.timing, this.now()));
  }

  private attachDriver(runId: string): RunDriver {
    const run = this.ledger.getRun(runId);
    if (!run) throw new TenderError('not_found', `no run ${runId}`);
    const nodes = this.ledger.nodesOfRun(runId);
    const unfinished = nodes.some((n) => this.ledger.getAttempt(n.id)?.phase !== 'done');
    if (!unfinished)
      throw new TenderError('conflict', `run ${runId} has already ended (${run.status})`);
    const spec = this.ledger.jobSpec(run.jobId);
    const driver = this.makeDriver(
      runId,
      spec,
      run.keep || run.policy?.afterJob === 'keep_warm',
      nodes,
      this.providers.get(run.provider),
      true,
    );
    driver.resume();
    return driver;
  }

  private makeDriver(
    runId: string,
    job: CommandArgs<'run.start'>['job'],
    keep: boolean,
    nodes: NodeRecord[],
    provider: Provider,
    resuming = false,
  ): RunDriver {
    const ctx = this.wiring();
    const managers = new Map<string, NodeManager>();
    const jobs = new Map<string, NodeJob>();
    let plan: Promise<PushPlan | null> | null = null;
    const workspacePlan = () =>
      (plan ??= job.workspace
        ? scanWorkspace(job.workspace.workdir, job.workspace.exclude).then((s) => ({
            root: s.root,
            dirs: s.dirs,
            files: s.files,
          }))
        : Promise.resolve(null));
    for (const rec of nodes) {
      const manager = makeNodeManager(ctx, rec, provider);
      managers.set(rec.id, manager);
      const attempt = resuming ? this.ledger.getAttempt(rec.id) : undefined;
      const state = attempt && {
        status: attempt.status,
        phase: attempt.phase,
        exitCode: attempt.exitCode,
        reason: attempt.reason,
        hasWorkspace: job.workspace !== undefined,
        hasSetup: job.setup !== undefined,
      };
      const nodeJob = makeNodeJob(
        ctx,
        manager,
        provider,
        {
          job,
          jobId: `${runId}.${rec.logicalId}`,
          keep,
          workspacePlan,
          onChange: () => this.emitNode(rec.id),
        },
        state,
      );
      jobs.set(rec.id, nodeJob);
    }
    const driver = new RunDriver(runId, managers, jobs, this.ledger, this.now, () =>
      this.emitRun(runId),
    );
    this.drivers.set(runId, driver);
    const policy = this.ledger.getRun(runId)?.policy;
    const guard =
      policy &&
      new RunGuard({
        runId,
        policy,
        ledger: this.ledger,
        now: this.now,
        everyMs: this.timing.guardEveryMs,
        recheck: () => this.reconciler?.tick('wake') ?? Promise.resolve(),
        stopNode: (nodeId, reason) => jobs.get(nodeId)?.stop(reason),
        note: (line) => {
          for (const id of jobs.keys())
            this.datastream.append(id, 'events', {
              source: 'event',
              stream: 'info',
              line,
              ts: this.now(),
            });
        },
        onChange: () => this.emitRun(runId),
      });
    guard?.start();
    void driver.done.then(() => {
      guard?.stop();
      this.drivers.delete(runId);
      // Nodes kept warm keep their link (and their switch renewed) while this process runs.
      for (const [id, j] of jobs) {
        if (managers.get(id)?.record.stage !== 'destroyed') this.warmJobs.add(j);
      }
      // A long-lived app keeps only managers with something left to do (a destroy retrying).
      for (const m of managers.values()) {
        if (m.record.stage !== 'destroyed') continue;
        m.stop();
        this.managers.delete(m);
      }
    });
    return driver;
  }

  // ── wiring and events ─────────────────────────────────────────────────────────────────

  wiring(): WiringContext {
    return {
      home: this.home,
      ledger: this.ledger,
      datastream: this.datastream,
      now: this.now,
      timing: this.timing,
      agentBundle: () => (this.bundle ??= loadAgentBundle(this.opts.env)),
      runtimeFor: runtimeLookup(this.opts.env),
      onNodeChange: (rec) => this.emitNode(rec.id),
      isNodeInUse: (nodeId) => this.terminals.isOpenOn(nodeId),
      adopt: (m) => this.managers.add(m),
      manifestMemory: this.manifestMemory,
      env: this.opts.env ?? process.env,
    };
  }

  /** The NodeManager a run driven by this process holds for a node, if any. */
  managerOf(nodeId: string): NodeManager | undefined {
    for (const d of this.drivers.values()) {
      const m = d.managers.get(nodeId);
      if (m) return m;
    }
    return undefined;
  }

  linkState(nodeId: string): 'none' | 'connected' | 'lost' {
    for (const d of this.drivers.values()) {
      const j = d.jobs.get(nodeId);
      if (j) return j.linkState;
    }
    return 'none';
  }

  private emitNode(nodeId: string): void {
    const rec = this.ledger.getNode(nodeId);
    if (!rec) return;
    const createdAt = this.ledger.getRun(rec.runId)?.createdAt ?? rec.stageSince;
    this.bus.emit(
      'node.changed',
      nodeView(this.ledger, rec, (id) => this.linkState(id), this.timing, createdAt),
    );
  }

  private emitRun(runId: string): void {
    this.bus.emit('run.changed', this.runView(runId));
  }

  /** Runs left pending/running by a process that is gone are marked detached: their nodes
   *  keep running until someone attaches or tears them down. */
  private markDriverlessRuns(): void {
    for (const run of this.ledger.listRuns()) {
      if ((run.status === 'pending' || run.status === 'running') && !run.detached) {
        this.ledger.updateRun(run.id, { detached: true, driverPid: null }, this.now());
      }
    }
  }

  /** Stops driving every run (they keep going on their nodes) and closes the ledger. */
  async close(): Promise<void> {
    await this.reconciler?.stop();
    this.terminals.closeAll();
    await this.workspaceSessions.closeAll();
    for (const [id, d] of this.drivers) {
      d.detach();
      this.drivers.delete(id);
    }
    for (const j of this.warmJobs) j.detach();
    this.warmJobs.clear();
    // Managers outlive their drivers (a destroy still retrying): none may act after this.
    for (const m of this.managers) m.stop();
    this.managers.clear();
    this.datastream.close();
    this.ledger.close();
  }
}

/** The desired shape of each node: one per `count`, or one per named host for `ssh`. */
function nodeShapes(
  home: string,
  kind: string,
  pool: CommandArgs<'run.start'>['pool'],
): Record<string, unknown>[] {
  const market = marketShape(pool);
  if (kind !== 'vastai' && Object.keys(market).length > 0) {
    throw new TenderError(
      'bad_input',
      `${Object.keys(market).join(', ')} ${Object.keys(market).length > 1 ? 'are' : 'is'} for a marketplace provider, not ${kind}`,
      'use --provider vastai (or provider = "vastai" in [pool]), or leave them out',
    );
  }
  if (pool.offers.length > 0 && kind !== 'vastai') {
    throw new TenderError('bad_input', `offers are picked from a marketplace, not ${kind}`);
  }
  if (kind !== 'ssh') {
    if (pool.hosts.length > 0)
      throw new TenderError('bad_input', `hosts are for the ssh provider, not ${kind}`);
    // Offers picked by hand: one node each (a count beyond them rents the cheapest matches).
    const count = Math.max(pool.count, pool.offers.length);
    return Array.from({ length: count }, (_, i) => ({
      ...market,
      ...(pool.offers[i] ? { offerId: pool.offers[i] } : {}),
    }));
  }
  if (pool.hosts.length === 0) {
    throw new TenderError(
      'bad_input',
      'the ssh provider needs hosts',
      'pass --hosts lab1,lab2 or set hosts in [pool]; `tender hosts add` registers one',
    );
  }
  if (pool.count > 1 && pool.count !== pool.hosts.length) {
    throw new TenderError(
      'bad_input',
      `count ${pool.count} does not match the ${pool.hosts.length} hosts given`,
      'with the ssh provider each host is one node; leave count out',
    );
  }
  if (new Set(pool.hosts).size !== pool.hosts.length)
    throw new TenderError('bad_input', 'a host is named twice in hosts');
  for (const name of pool.hosts) findHost(home, name); // unknown names are bad input, named
  return pool.hosts.map((host) => ({ host }));
}

const MARKET_FIELDS = [
  'gpu',
  'gpu_count',
  'min_vram_gb',
  'max_price',
  'image',
  'disk_gb',
  'min_reliability',
  'min_down_mbps',
  'min_up_mbps',
  'verified',
] as const;

/** The pool's marketplace fields that were given (the node shape a marketplace searches). */
function marketShape(pool: CommandArgs<'run.start'>['pool']): Record<string, unknown> {
  const shape: Record<string, unknown> = {};
  for (const k of MARKET_FIELDS) if (pool[k] !== undefined) shape[k] = pool[k];
  return shape;
}

/** Checks a job that came through the contract (the job-file loader checks its own). */
function validateJob(job: CommandArgs<'run.start'>['job']): CommandArgs<'run.start'>['job'] {
  if (job.workspace) {
    const { workdir, problem } = resolveWorkdir(job.workspace.workdir, process.cwd());
    if (problem) throw new TenderError('bad_input', problem.text, problem.hint);
    job = { ...job, workspace: { ...job.workspace, workdir } };
  }
  const { outputs, problems } = checkOutputs(job.outputs);
  if (problems.length > 0) throw new TenderError('bad_input', problems[0]!.text);
  // The same rules as a tender.toml's: a run started from the UI gets the same checks.
  for (const name of Object.keys(job.env)) {
    const bad = checkName(name);
    if (bad) throw new TenderError('bad_input', bad.text, bad.hint);
  }
  const params = checkParams(job.params);
  if (params.length > 0) throw new TenderError('bad_input', params[0]!.text);
  return { ...job, outputs };
}
