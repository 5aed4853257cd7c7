import type { LeaseParams, Phase, PhaseState, TeardownRecord } from '../../src-agent/wire/protocol';
import type { JobSpec } from '../contract';
import type { Datastream } from '../datastream/datastream';
import type { Ledger } from '../ledger/ledger';
import { AgentLink, type LinkState } from '../nodes/agent-link';
import type { NodeManager } from '../nodes/node-manager';
import type { NodeRecord } from '../nodes/node-record';
import type { NodeEndpoint } from '../providers/provider';
import type { NodeShell } from '../transport/node-shell';
import { jobTransition, type JobCommand, type JobEvent, type JobState } from './job-fsm';
import { pullOutputs } from './outputs/pull';
import { REDACTED } from './redact-job';
import { formatCount } from './workspace/human-units';
import type { PushPlan } from './workspace/push';
import type { NodeManifestMemory } from './workspace/node-manifest-memory';
import { syncWorkspace } from './workspace/sync';
import { DeadManRenewer } from './dead-man-renewer';

export interface NodeJobDeps {
  ledger: Ledger;
  datastream: Datastream;
  manager: NodeManager;
  job: JobSpec;
  jobId: string;
  keep: boolean;
  outputsDir: string;
  /** Where file hashes are cached between pushes (hash-cache.ts). */
  hashCacheFile: string;
  /** What was last pushed to each node (node-manifest-memory.ts). */
  manifestMemory: NodeManifestMemory;
  connect(endpoint: NodeEndpoint): (signal: AbortSignal) => Promise<NodeShell>;
  workspacePlan(): Promise<PushPlan | null>;
  isLeaseGone(rec: NodeRecord): Promise<boolean>;
  onChange(): void;
  crashPoint(name: string): void;
  now(): number;
  cancelGraceMs: number;
  /** Stop waiting for a destroy after this many failed attempts; the lease stays listed. */
  teardownMaxAttempts: number;
  /** Leases a node may go through when boots fail (1: no replacement). */
  maxBootAttempts: number;
  /** The lease label of a node's `attempt`-th lease. */
  nextLabel(attempt: number): string;
  /** A lease failed to boot and was destroyed: remember its host, journal what it cost. */
  recordBootFailure(rec: NodeRecord, reason: string): void;
  /** The node's dead-man switch (issue 6); null: none is armed. */
  deadMan: DeadManWiring | null;
}

/** What a NodeJob knows that a renewal depends on. */
export interface RenewalState {
  inUse: boolean;
  collected: boolean;
  jobEndedAt: number | null;
}

export interface DeadManWiring {
  everyMs: number;
  /** The `lease` request for now; null when the run has no policy. */
  params(state: RenewalState): LeaseParams | null;
  /** The agent acknowledged a renewal. */
  onRenewed(params: LeaseParams, state: RenewalState): void;
  /** The node said its switch fired; returns the words the ledger keeps. */
  onSelfTeardown(record: TeardownRecord): string;
  /** A lease found gone: the words for it if the node's own switch explains it. */
  explainLoss(): string | null;
  /** Someone is using the node through the app (an open terminal). */
  isNodeInUse(): boolean;
}

type ViewLinkState = 'none' | 'connected' | 'lost';

/** Runs the job on one node: executes the commands of the job FSM (job-fsm.ts) and feeds
 *  their outcomes back as events. Every transition is journaled and logged. */
export class NodeJob {
  private link: AgentLink | null = null;
  private readonly phaseWaiters = new Map<Phase, ((s: PhaseState) => void)[]>();
  private readonly phases = new Map<Phase, PhaseState>();
  private detached = false;
  private finish!: (s: JobState) => void;
  readonly done: Promise<JobState>;
  private markRunStarted!: () => void;
  /** Settles once the agent has started the run phase, or the job has ended without it. */
  readonly runStarted = new Promise<void>((r) => (this.markRunStarted = r));
  linkState: ViewLinkState = 'none';
  private renewer: DeadManRenewer | null = null;
  private collected = false;
  private jobEndedAt: number | null = null;
  /** Set when the node's own dead-man switch fired: the destroy reason the ledger shows. */
  private selfTeardown: string | null = null;

  constructor(
    readonly nodeId: string,
    private state: JobState,
    private readonly deps: NodeJobDeps,
  ) {
    this.done = new Promise((r) => (this.finish = r));
    void this.done.then(() => this.markRunStarted());
    if (state.phase === 'done') this.finish(state);
  }

  get current(): JobState {
    return this.state;
  }

  start(): void {
    this.dispatch({ type: 'JobSubmitted' });
  }

  /** OperatorStop: cancel, collect best effort, tear down. `reason` (default "cancelled")
   *  is what the job's outcome says, e.g. "budget reached". */
  stop(reason?: string): void {
    this.dispatch(reason ? { type: 'OperatorStop', reason } : { type: 'OperatorStop' });
  }

  /** Tear down at once, skipping collection (Tear down all). */
  abandon(reason: string): void {
    this.dispatch({ type: 'NodeLost', reason });
  }

  /** Stops acting without touching the node: the agent keeps running the job. */
  detach(): void {
    this.detached = true;
    this.renewer?.stop();
    this.link?.close();
    this.link = null;
  }

  /** Picks up a job that a previous process was driving (after detach or a crash). */
  resume(): void {
    const s = this.state;
    const redo: Partial<Record<JobState['phase'], JobCommand>> = {
      provisioning: 'ProvisionNode',
      materializing: 'MaterializeWorkspace',
      setup: 'RunSetup',
      run: 'RunJob',
      collecting: 'CollectOutputs',
      tearing_down: 'TeardownNode',
    };
    const cmd = redo[s.phase];
    this.note(`resuming in phase ${s.phase}`);
    if (cmd) void this.execute([cmd]);
  }

  private dispatch(event: JobEvent): void {
    if (this.detached) return;
    const step = jobTransition(this.state, event);
    if (step.ignored) return;
    const prev = this.state;
    this.state = step.state;
    const now = this.deps.now();
    this.deps.ledger.updateAttempt(
      this.nodeId,
      {
        status: step.state.status,
        phase: step.state.phase,
        exitCode: step.state.exitCode,
        reason: step.state.reason,
      },
      {
        kind: `job.${event.type}`,
        data: {
          from: `${prev.status}/${prev.phase}`,
          to: `${step.state.status}/${step.state.phase}`,
        },
      },
      now,
    );
    if (prev.status !== step.state.status || prev.phase !== step.state.phase) {
      const why =
        step.state.reason && step.state.reason !== prev.reason ? ` (${step.state.reason})` : '';
      this.note(`job ${step.state.status}: ${step.state.phase.replace('_', ' ')}${why}`);
    }
    this.deps.onChange();
    if (step.state.phase === 'done') this.finish(step.state);
    void this.execute(step.commands);
  }

  private async execute(commands: JobCommand[]): Promise<void> {
    for (const cmd of commands) {
      if (this.detached) return;
      const event = await this.run(cmd).catch((err: Error): JobEvent => ({
        type: 'NodeFault',
        reason: `${cmd}: ${err.message}`,
      }));
      if (event) this.dispatch(event);
    }
  }

  private async run(cmd: JobCommand): Promise<JobEvent | null> {
    switch (cmd) {
      case 'ProvisionNode':
        return this.provision();
      case 'MaterializeWorkspace':
        return this.materialize();
      case 'RunSetup':
        return this.runPhase('setup');
      case 'RunJob':
        return this.runPhase('run');
      case 'CancelJob':
        return this.cancel();
      case 'CollectOutputs':
        return this.collect();
      case 'TeardownNode':
        return this.teardown();
    }
  }

  /** Brings the node up. A node that fails to boot (no endpoint, or a failed bootstrap) on
   *  a provider that can replace it is destroyed — and only once the provider confirms it
   *  gone — replaced by a lease on another host, up to `maxBootAttempts` leases in all. */
  private async provision(): Promise<JobEvent> {
    const { manager } = this.deps;
    if (manager.record.stage === 'new') manager.send({ type: 'Start' });
    else manager.resume();
    for (;;) {
      const rec = await manager.waitFor((r) =>
        ['dormant', 'failed', 'destroying', 'destroyed'].includes(r.stage),
      );
      if (rec.stage === 'dormant') return { type: 'NodeReady' };
      const reason = rec.failedReason ?? `node ${rec.stage}`;
      if (!isBootFailure(rec) || rec.attempt + 1 >= this.deps.maxBootAttempts) {
        return { type: 'NodeFault', reason };
      }
      const machine = rec.lease?.metadata.machine_id ?? null;
      this.note(
        `boot failed on ${rec.lease?.leaseId}${machine ? ` (host ${machine})` : ''}: ${reason}; destroying it before trying another host`,
      );
      manager.send({ type: 'Destroy', reason: 'boot failure' });
      const gone = await manager.waitFor(
        (r) =>
          r.stage === 'destroyed' ||
          (r.stage === 'destroying' && r.destroyAttempts >= this.deps.teardownMaxAttempts),
      );
      if (gone.stage !== 'destroyed') {
        return {
          type: 'NodeFault',
          reason: `${reason}; the failed lease is not confirmed destroyed, so no replacement was started`,
        };
      }
      this.deps.recordBootFailure(gone, reason);
      manager.send({
        type: 'Replace',
        label: this.deps.nextLabel(gone.attempt + 1),
        excludeMachine: machine,
      });
      manager.send({ type: 'Start' });
    }
  }

  private async materialize(): Promise<JobEvent> {
    const plan = await this.deps.workspacePlan();
    if (!plan) return { type: 'WorkspaceMaterialized' };
    const link = this.ensureLink();
    const shell = await link.bulkShell();
    try {
      const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
      const total = plan.files.reduce((n, f) => n + f.size, 0);
      this.note(`pushing workspace: ${plan.files.length} files, ${mb(total)}`);
      let lastNote = this.deps.now();
      const res = await syncWorkspace(shell, this.address(), plan, {
        hashCacheFile: this.deps.hashCacheFile,
        memory: { store: this.deps.manifestMemory, key: this.deps.manager.record.label },
        onProgress: (p) => {
          if (this.deps.now() - lastNote < 1_000) return;
          lastNote = this.deps.now();
          this.note(
            p.stage === 'hashing'
              ? `hashing workspace: ${p.files}/${p.totalFiles} files`
              : `pushing workspace: ${p.files}/${p.totalFiles} files, ${mb(p.bytes)} of ${mb(p.totalBytes)}`,
          );
        },
      });
      this.note(
        res.mode === 'full'
          ? `workspace ready: ${res.filesSent} files, ${mb(res.bytesSent)}`
          : `workspace: ${formatCount(res.filesSent)} changed, ${formatCount(res.deleted)} deleted, ` +
              `${formatCount(res.unchanged)} unchanged (${mb(res.bytesSent)} sent)`,
      );
      return { type: 'WorkspaceMaterialized' };
    } finally {
      await shell.close();
    }
  }

  private async runPhase(phase: Phase): Promise<JobEvent> {
    const link = this.ensureLink();
    const { job } = this.deps;
    const env: Record<string, string> = {};
    const secretEnv: Record<string, string> = {};
    let secretsRedacted = false;
    for (const [k, v] of Object.entries(job.env)) {
      if (typeof v === 'string') env[k] = v;
      else if (!('value' in v))
        throw new Error(`secret ${k} was never resolved from $${v.fromEnv}`);
      else if (v.value === REDACTED) secretsRedacted = true;
      else secretEnv[k] = v.value;
    }
    // A resumed run holds its secrets only redacted (the ledger never stores them): the
    // agent keeps the ones it was given when the run started.
    await link.request('configure', {
      jobId: this.deps.jobId,
      attempt: 0,
      env,
      ...(secretsRedacted ? {} : { secretEnv }),
      params: job.params,
    });
    const command = phase === 'setup' ? job.setup! : job.run;
    const exited = this.waitPhase(phase);
    await link.request('start', { phase, command });
    if (phase === 'run') {
      this.markRunStarted();
      this.deps.crashPoint('job-running');
    }
    const st = await exited;
    await this.drainLogs(link);
    const exit = { code: st.code, signal: st.signal };
    return phase === 'setup' ? { type: 'SetupExited', ...exit } : { type: 'JobExited', ...exit };
  }

  private async cancel(): Promise<null> {
    if (!this.link) return null;
    const running = [...this.phases.values()]
      .filter((p) => p.state === 'running')
      .map((p) => p.phase);
    await this.link.request('cancel', { graceMs: this.deps.cancelGraceMs });
    await Promise.all(running.map((p) => this.waitPhase(p)));
    await this.drainLogs(this.link);
    return null;
  }

  private async collect(): Promise<JobEvent> {
    const rec = this.deps.manager.record;
    if (!rec.agent) return { type: 'OutputsCollected', missing: [] };
    const link = this.ensureLink();
    const shell = await link.bulkShell();
    try {
      const pulled = await pullOutputs(
        shell,
        this.address(),
        this.deps.job.outputs,
        this.deps.outputsDir,
      );
      this.note(
        `outputs: ${pulled.files.length} files, ${pulled.bytes} bytes in ${pulled.dir}` +
          (pulled.missing.length ? `; missing: ${pulled.missing.join(', ')}` : ''),
      );
      this.collected = true;
      void this.renewer?.renewNow();
      return { type: 'OutputsCollected', missing: pulled.missing };
    } catch (err) {
      this.note(`outputs not collected: ${(err as Error).message}`);
      return { type: 'OutputsFailed', error: (err as Error).message };
    } finally {
      await shell.close();
    }
  }

  private async teardown(): Promise<JobEvent> {
    const { manager, keep, teardownMaxAttempts } = this.deps;
    if (keep && manager.record.stage === 'dormant' && this.selfTeardown === null) {
      // Kept warm: the link stays (the switch keeps being renewed while this process runs);
      // the node destroys itself once idle, or when this process is gone past the grace.
      this.note(
        this.deps.deadMan
          ? 'node kept warm: it stays listed and billed until it has been idle for the idle timeout, or `tender down`'
          : 'node kept (--keep): it stays listed and billed until `tender down`',
      );
      void this.renewer?.renewNow();
      return { type: 'TeardownComplete', error: null };
    }
    this.renewer?.stop();
    this.link?.close();
    this.link = null;
    // A destroy begun by a process that died is re-issued (idempotent); Destroy itself
    // would be ignored in that stage.
    if (manager.record.stage === 'destroying') manager.resume();
    else manager.send({ type: 'Destroy', reason: this.selfTeardown ?? `job ${this.state.status}` });
    const rec = await manager.waitFor(
      (r) =>
        r.stage === 'destroyed' ||
        (r.stage === 'destroying' && r.destroyAttempts >= teardownMaxAttempts),
    );
    if (rec.stage === 'destroyed') return { type: 'TeardownComplete', error: null };
    return {
      type: 'TeardownComplete',
      error: `not confirmed destroyed: ${rec.lastError ?? 'unknown error'}`,
    };
  }

  private ensureLink(): AgentLink {
    if (this.link) return this.link;
    const rec = this.deps.manager.record;
    if (!rec.agent || !rec.connection) throw new Error(`node ${rec.id} has no joined agent`);
    const connect = this.deps.connect(rec.connection);
    this.link = new AgentLink({
      connect,
      address: rec.agent.address,
      fromSeq: () => this.deps.datastream.lastSeq(this.nodeId, 'agent') + 1,
      onRecords: (records) => {
        for (const r of records) {
          this.deps.datastream.append(this.nodeId, 'agent', {
            seq: r.seq,
            ts: r.ts,
            source: r.src,
            stream: r.stream,
            line: r.line,
          });
        }
      },
      onPhase: (st) => {
        this.phases.set(st.phase, st);
        if (st.state !== 'exited') return;
        if (st.phase === 'run' && this.jobEndedAt === null) {
          this.jobEndedAt = this.deps.now();
          void this.renewer?.renewNow();
        }
        for (const resolve of this.phaseWaiters.get(st.phase) ?? []) resolve(st);
        this.phaseWaiters.delete(st.phase);
      },
      onTeardown: (record) => this.onSelfTeardown(record),
      onState: (state: LinkState, detail) => {
        if (state === 'lost') void this.checkLost(rec, detail);
        const view: ViewLinkState =
          state === 'connected'
            ? 'connected'
            : state === 'lost'
              ? 'lost'
              : state === 'closed'
                ? 'none'
                : this.linkState;
        // A new connection may be to a restarted agent, which holds no switch until told.
        if (state === 'connected') void this.renewer?.renewNow();
        if (view === this.linkState) return;
        if (view === 'lost') this.note(`link lost: ${detail}; reconnecting`);
        else if (this.linkState === 'lost' && view === 'connected') this.note('link restored');
        this.linkState = view;
        this.deps.onChange();
      },
    });
    this.armDeadMan(this.link);
    return this.link;
  }

  private armDeadMan(link: AgentLink): void {
    const dm = this.deps.deadMan;
    if (!dm || this.renewer) return;
    const state = () => this.renewalState();
    this.renewer = new DeadManRenewer({
      everyMs: dm.everyMs,
      send: (params) => link.request('lease', params, 15_000),
      params: () => dm.params(state()),
      onRenewed: (params) => dm.onRenewed(params, state()),
      onFailed: (message) => this.note(`dead-man switch not renewed: ${message}`),
    });
    this.renewer.start();
  }

  private renewalState(): RenewalState {
    const active = this.state.phase !== 'done' && this.state.phase !== 'tearing_down';
    return {
      inUse: active || (this.deps.deadMan?.isNodeInUse() ?? false),
      collected: this.collected,
      jobEndedAt: this.jobEndedAt,
    };
  }

  /** The node's own switch fired: it is stopping its job and destroying itself. The app
   *  still destroys the lease the usual way (idempotent) and confirms it gone. */
  private onSelfTeardown(record: TeardownRecord): void {
    if (this.detached || this.selfTeardown !== null || !this.deps.deadMan) return;
    this.selfTeardown = this.deps.deadMan.onSelfTeardown(record);
    this.renewer?.stop();
    this.note(`${this.selfTeardown} (the node is tearing itself down)`);
    if (this.state.phase === 'done') {
      this.link?.close();
      this.link = null;
      this.deps.manager.send({ type: 'Destroy', reason: this.selfTeardown });
    } else {
      this.dispatch({ type: 'NodeLost', reason: this.selfTeardown });
    }
  }

  private async checkLost(rec: NodeRecord, detail: string): Promise<void> {
    if (await this.deps.isLeaseGone(rec).catch(() => false)) {
      if (this.detached) return; // this process stopped driving the node meanwhile
      const explained = this.deps.deadMan?.explainLoss() ?? null;
      if (explained) {
        this.selfTeardown ??= explained;
        this.renewer?.stop();
        this.note(explained);
      }
      const reason = explained ?? `the lease is gone (${detail})`;
      if (this.state.phase !== 'done') return this.dispatch({ type: 'NodeLost', reason });
      // A kept node: nothing of the job is left to do; confirm the destroy.
      this.renewer?.stop();
      this.link?.close();
      this.link = null;
      this.deps.manager.send({ type: 'Destroy', reason });
    }
  }

  private waitPhase(phase: Phase): Promise<PhaseState> {
    const known = this.phases.get(phase);
    if (known?.state === 'exited') return Promise.resolve(known);
    return new Promise((resolve) =>
      this.phaseWaiters.set(phase, [...(this.phaseWaiters.get(phase) ?? []), resolve]),
    );
  }

  /** Waits until every log record the agent has written is stored here. */
  private async drainLogs(link: AgentLink): Promise<void> {
    const { lastSeq } = await link.request('status', {});
    const deadline = this.deps.now() + 30_000;
    while (
      this.deps.datastream.lastSeq(this.nodeId, 'agent') < lastSeq &&
      this.deps.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private address() {
    const agent = this.deps.manager.record.agent;
    if (!agent) throw new Error('no agent');
    return agent.address;
  }

  private note(line: string): void {
    this.deps.datastream.append(this.nodeId, 'events', {
      source: 'event',
      stream: 'info',
      line,
      ts: this.deps.now(),
    });
  }
}

/** Failures of the machine itself (it never became reachable or never ran the agent), as
 *  opposed to a provider refusing to lease at all, or the job failing. */
function isBootFailure(rec: NodeRecord): boolean {
  return (
    rec.lease !== null && !rec.leaseLost && /^(endpoint|bootstrap)\b/.test(rec.failedReason ?? '')
  );
}
