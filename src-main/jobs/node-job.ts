import type { Phase, TeardownRecord } from '../../src-agent/wire/protocol';
import { AgentLink, type LinkState } from '../nodes/agent-link';
import type { NodeRecord } from '../ledger/node-record';
import { isDestroySettled } from './boot-replacement';
import { DeadManRenewer } from './dead-man-renewer';
import { jobTransition, type JobCommand, type JobEvent, type JobState } from './job-fsm';
import { AgentLogSink, eventNotes } from './job-logs';
import { resumeCommand } from './job-resume';
import { configureParams } from './job-secrets';
import { hostSetupScript } from './host-declaration';
import { type AgentRequest, waitForHostSetup } from './host-setup-wait';
import { journalNodeCache } from './node-cache-journal';
import { journalJobStep, stepNote } from './job-step-record';
import {
  closeEarlySession,
  type EarlySession,
  openEarlySession,
  pullJobOutputs,
  pullRunningOutputs,
  pushJobWorkspace,
  type TransferDeps,
} from './job-transfers';
import { linkViewChange, type ViewLinkState } from './link-view';
import type { NodeJobDeps, RenewalState } from './node-job-deps';
import type { SweepWiring } from './sweep/cell-server';
import type { Gang, GangStart } from './distributed/gang';
import { peerAddress } from './distributed/peer-address';
import {
  isNodeLost,
  isTeardownToActOn,
  leaseGoneDecision,
  selfTeardownAction,
  type NodeGoneAction,
} from './node-loss';
import { readTeardownOnDisk } from './teardown-on-disk';
import { DEFAULT_PULL_EVERY_S, PeriodicPulls } from './periodic-pulls';
import { PhaseTracker } from './phase-tracker';
import { pullOutputs, type PulledOutputs } from './outputs/pull';
import { outputsNote } from './transfer-notes';
import { CLAIM_CHECK_DEADLINE_MS, claimProblem } from './claimed-node';
import { provisionNode } from './provision-node';
import { pullCheckpoints, restoreCheckpoints } from './checkpoints';
import { teardownOutcome, teardownPlan } from './teardown-plan';
import { CellServer } from './sweep/cell-server';

export type { DeadManWiring, NodeJobDeps, RenewalState } from './node-job-deps';

/** How long a phase's exit waits for the agent's last log lines to be stored: lines that
 *  never arrive (a link down for good) must not hold the job's outcome. */
const DRAIN_DEADLINE_MS = 30_000;
/** How soon a job whose link is down looks again at what the reconciler recorded. */
const INTERRUPTION_LOOK_MS = 1_000;
/** Between two looks for a teardown record on the disk of a node whose agent does not
 *  answer: the link's longest backoff, so a link down for long costs one extra connection
 *  per retry at most. */
const TEARDOWN_LOOK_MS = 10_000;

/** Runs the job on one node: executes the commands of the job FSM (job-fsm.ts) and feeds
 *  their outcomes back as events. Every transition is journaled and logged. The decisions
 *  are pure functions beside it; this class performs them. */
export class NodeJob {
  private link: AgentLink | null = null;
  private readonly phases = new PhaseTracker();
  private readonly logs: AgentLogSink;
  private readonly note: (line: string) => void;
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
  /** A claimed warm node is being checked: link losses and teardowns are the check's. */
  private checkingClaim = false;
  /** During the check: told the reason once the link has failed twice in a row. */
  private claimLinkLost: ((reason: string) => void) | null = null;
  private claimLinkFailures = 0;
  /** The outputs as the final collection brought them (for the receipt). */
  private pulled: PulledOutputs | null = null;
  /** A claimed warm node's push session, opened while its link handshakes. */
  private earlySession: Promise<EarlySession | null> | null = null;
  /** A second look at the lease's interruption while the link is down (checkPreempted). */
  private interruptionLook: NodeJS.Timeout | null = null;
  /** Leases found gone (each is acted on once). */
  private readonly lostLeases = new Set<string>();
  /** Set when the node's own dead-man switch fired: the destroy reason the ledger shows. */
  private selfTeardown: string | null = null;
  /** When the node's disk was last looked at for a teardown record (null: never). */
  private teardownLookAt: number | null = null;
  /** Picked up in the run phase after a detach or a crash (its run may have started). */
  private isResumedInRun = false;
  /** A sweep node's server of cells for the attempt now running (null: none yet). */
  private cells: CellServer | null = null;

  constructor(
    readonly nodeId: string,
    private state: JobState,
    private readonly deps: NodeJobDeps,
  ) {
    this.logs = new AgentLogSink(
      deps.datastream,
      nodeId,
      deps.manager.record.claimedFrom?.agentSeq ?? 0,
      () => deps.manager.record.agentSeqOffset ?? 0,
    );
    this.note = eventNotes(deps.datastream, nodeId, deps.now);
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
    this.closeLink();
    this.logs.releaseAll();
  }

  /** A distributed run's gang restarts (another rank was lost): this rank's run stops and
   *  starts again with the others, as a new attempt. */
  restartWithGang(reason: string): void {
    this.dispatch({ type: 'GangRestart', reason });
  }

  /** Stops one running cell of a sweep; the node goes on with the next. False: the cell
   *  is not running here. */
  cancelCell(cellId: string): Promise<boolean> {
    return this.cells?.cancel(cellId, this.deps.cancelGraceMs) ?? Promise.resolve(false);
  }

  /** Picks up a job that a previous process was driving (after detach or a crash). */
  resume(): void {
    this.isResumedInRun = this.state.phase === 'run';
    const cmd = resumeCommand(this.state.phase);
    this.note(`resuming in phase ${this.state.phase}`);
    if (cmd) void this.execute([cmd]);
  }

  private dispatch(event: JobEvent): void {
    if (this.detached) return;
    const step = jobTransition(this.state, event);
    if (step.ignored) return;
    const prev = this.state;
    this.state = step.state;
    journalJobStep(this.deps.ledger, this.nodeId, event, prev, step.state, this.deps.now());
    this.leaveCell(event, prev, step.state);
    this.deps.gang?.gang.observe(this.deps.gang.rank, event, prev, step.state);
    const note = stepNote(prev, step.state);
    if (note) this.note(note);
    this.deps.onChange();
    if (step.state.phase === 'done') {
      if (!this.deps.sweep) this.recordReceipt(step.state);
      this.finish(step.state);
    }
    void this.execute(step.commands);
  }

  private async execute(commands: JobCommand[]): Promise<void> {
    for (const cmd of commands) {
      if (this.detached) return;
      const attempt = this.state.attempt;
      const event = await this.run(cmd).catch((err: Error): JobEvent => ({
        type: 'NodeFault',
        reason: `${cmd}: ${err.message}`,
      }));
      // A command of an attempt that a recovery has since replaced (its link closed under
      // it) reports nothing about the attempt now running.
      if (this.state.attempt !== attempt) return;
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
      case 'RecoverNode':
        return this.recover();
    }
  }

  /** A new attempt: the lost (or failed) node's lease is destroyed — confirmed by the
   *  provider — before another is rented; the new agent's log continues the same panes. */
  private async recover(): Promise<JobEvent> {
    const rec = this.deps.manager.record;
    this.closeLink();
    this.renewer = null;
    this.phases.reset([]);
    this.jobEndedAt = null;
    this.collected = false;
    this.selfTeardown = null;
    const n = this.state.attempt;
    this.note(
      `── attempt ${n + 1} after ${this.state.recoveredFrom ?? 'a failure'}: ${rec.lease?.leaseId ?? rec.label} is destroyed (confirmed) before another node is rented ──`,
    );
    const event = await provisionNode(
      { ...this.deps, note: this.note },
      {
        replaceFirst: `recovery after ${this.state.recoveredFrom ?? 'a failure'}`,
        agentSeqOffset: this.deps.datastream.lastSeq(this.nodeId, 'agent'),
      },
    );
    if (event.type === 'NodeReady') {
      const now = this.deps.manager.record;
      this.note(`── attempt ${n + 1} on ${now.lease?.leaseId ?? now.label} ──`);
    }
    return event;
  }

  /** Brings the node up, replacing a lease that fails to boot (provision-node.ts). A
   *  claimed warm node is checked first: alive, its switch not fired, the key it advertises
   *  the one this job needs; one that is not is destroyed (confirmed) and replaced. */
  private async provision(): Promise<JobEvent> {
    const rec = this.deps.manager.record;
    const d = { ...this.deps, note: this.note };
    if (!rec.claimedFrom || rec.stage !== 'dormant') return provisionNode(d);
    // Checked on the job's own link (one connection, which the job then keeps); while the
    // check runs a drop or a fired switch is the check's to judge, not a lost node's.
    this.checkingClaim = true;
    // The workspace scan (shared by the run's nodes) and the push's session (a process
    // start on the node) get ready while the link handshakes.
    void this.deps.workspacePlan().catch(() => null);
    if (this.deps.job.workspace) this.earlySession = openEarlySession(this.transfers());
    const lost = new Promise<string>((r) => (this.claimLinkLost = r));

    const hello = await Promise.race([
      this.ensureLink().helloWithin(CLAIM_CHECK_DEADLINE_MS),
      lost,
    ]);
    this.checkingClaim = false;
    const problem =
      typeof hello === 'string' ? `does not answer (${hello})` : claimProblem(hello, rec);
    if (!problem) return { type: 'NodeReady' };
    this.closeLink();
    this.renewer = null; // the replacement's link arms a switch of its own
    this.note(`warm node ${rec.lease?.leaseId ?? rec.label} ${problem}: renting a new node`);
    return provisionNode(d, { replaceFirst: `warm node unusable: ${problem}` });
  }

  private async materialize(): Promise<JobEvent> {
    const plan = await this.deps.workspacePlan();
    const early = await this.takeEarlySession();
    if (!plan) {
      await closeEarlySession(early);
      return { type: 'WorkspaceMaterialized' };
    }
    const pushed = await pushJobWorkspace(
      this.transfers(),
      plan,
      {
        hashCacheFile: this.deps.hashCacheFile,
        memory: { store: this.deps.manifestMemory, key: this.deps.manager.record.label },
      },
      early,
    );
    const ckpt = this.deps.job.checkpoints;
    if (ckpt && this.state.attempt > 0) await this.restore(ckpt);
    return pushed;
  }

  /** The job's receipt; a failure to write one is noted, never the job's. */
  private recordReceipt(state: JobState): void {
    try {
      this.deps.recordReceipt?.({ state, pulled: this.pulled });
    } catch (err) {
      this.note(`no receipt written: ${(err as Error).message}`);
    }
  }

  private async takeEarlySession(): Promise<EarlySession | null> {
    const early = this.earlySession;
    this.earlySession = null;
    return early ? await early : null;
  }

  private dropEarlySession(): void {
    void this.takeEarlySession().then(closeEarlySession);
  }

  /** A recovered attempt resumes from the last checkpoints pulled. */
  private async restore(path: string): Promise<void> {
    const ok = await this.ensureLink().withBulkShell((shell) =>
      restoreCheckpoints(shell, this.address(), path, this.deps.outputsDir),
    );
    this.note(ok ? `checkpoints restored into ${path}` : `no checkpoints to restore into ${path}`);
  }

  /** Pulls the outputs and the checkpoints every `checkpoint_every_s` while the run phase
   *  runs (periodic-pulls.ts). */
  private pullWhileRunning(): PeriodicPulls {
    const everyMs = (this.deps.job.checkpoint_every_s ?? DEFAULT_PULL_EVERY_S) * 1000;
    return new PeriodicPulls(everyMs, async () => {
      if (this.detached) return;
      const path = this.deps.job.checkpoints;
      if (path) await this.pullCheckpointsNow(path);
      await pullRunningOutputs(this.transfers(), this.deps.job.outputs, this.deps.outputsDir);
    });
  }

  private async pullCheckpointsNow(path: string): Promise<void> {
    try {
      const n = await this.ensureLink().withBulkShell((shell) =>
        pullCheckpoints(shell, this.address(), path, this.deps.outputsDir),
      );
      this.note(`checkpoints pulled: ${n} file(s) from ${path}`);
    } catch (err) {
      this.note(`checkpoints not pulled: ${(err as Error).message}`);
    }
  }

  private async runPhase(phase: Phase): Promise<JobEvent | null> {
    const link = this.ensureLink();
    const { job } = this.deps;
    const request: AgentRequest = (op, params, ms) => link.request(op, params, ms);
    if (phase === 'setup' || job.setup === undefined) {
      // The job's first phase waits for the node's host setup (the agent refuses to start
      // before); a declared entry that failed fails the job, and the node stays.
      const host = await waitForHostSetup({
        request,
        declared: job.host_setup.map(hostSetupScript),
        shouldStop: () => this.state.phase !== phase,
        onWaiting: this.note,
      });
      if (host.kind === 'stopped') return null;
      if (host.kind === 'failed') return { type: 'NodeFault', reason: host.reason };
    }
    if (phase === 'run' && this.deps.sweep) return this.serveCells(this.deps.sweep);
    const gang = phase === 'run' ? this.deps.gang : undefined;
    const rank = gang ? await this.arriveInGang(gang, link) : null;
    if (rank?.kind === 'stopped') return null; // the gang stops this rank with its reason
    const params = configureParams(this.deps.jobId, job, this.deps.freshSetup, this.state.attempt);
    if (rank?.kind === 'go') params.gang = rank.env;
    await link.request('configure', params);
    // What the agent holds after configure is what counts: a warm node reports the phases
    // of the job before until this job is configured (which clears them).
    this.phases.reset(Object.values((await link.request('status', {})).phases));
    if (gang && rank?.kind === 'go') {
      // Every rank configured, then all start together.
      if ((await gang.gang.configured(gang.rank)).kind === 'stopped') return null;
      gang.gang.markStart(gang.rank);
    }
    const command = phase === 'setup' ? job.setup! : job.run;
    const exited = this.phases.exited(phase);
    await link.request('start', { phase, command });
    if (phase === 'run') {
      this.markRunStarted();
      this.deps.crashPoint('job-running');
      this.openForwards();
    }
    const pulls = phase === 'run' ? this.pullWhileRunning() : null;
    const st = await exited.finally(() => pulls?.stop());
    await this.drainLogs(link);
    // The checkpoints as the run left them (a recovery after a nonzero exit resumes there).
    if (phase === 'run' && job.checkpoints) await this.pullCheckpointsNow(job.checkpoints);
    if (phase === 'run') {
      const at = { runId: this.deps.manager.record.runId, nodeId: this.nodeId, now: this.deps.now };
      await journalNodeCache(this.deps.ledger, request, at);
    }
    const exit = { code: st.code, signal: st.signal };
    return phase === 'setup' ? { type: 'SetupExited', ...exit } : { type: 'JobExited', ...exit };
  }

  /** This rank is set up: wait for the others and the pre-flight (distributed/gang.ts). A
   *  rank whose run already started (picked up after a detach) waits for nobody. */
  private async arriveInGang(
    g: { gang: Gang; rank: number },
    link: AgentLink,
  ): Promise<GangStart | { kind: 'resumed' }> {
    // Only a job picked up mid-run can find its run started: a warm node reports the job
    // before's phases until this one is configured.
    if (this.isResumedInRun && (await link.request('status', {})).phases.run) {
      g.gang.markResumed(g.rank);
      return { kind: 'resumed' };
    }
    const rec = this.deps.manager.record;
    if (!rec.connection) throw new Error(`node ${rec.id} has no endpoint`);
    const gpus = Number(rec.agent?.capabilities['gpu.count'] ?? 0);
    return g.gang.arrive({
      rank: g.rank,
      request: (op, params, ms) => link.request(op, params, ms),
      address: peerAddress(rec.connection),
      gpus: Number.isFinite(gpus) ? gpus : 0,
    });
  }

  /** The job's `ports` and `remote_ports`, once its run has started (a failure to open
   *  one is noted; the job goes on). */
  private openForwards(): void {
    const { job, forwards } = this.deps;
    if (!forwards || (job.ports.length === 0 && job.remote_ports.length === 0)) return;
    void forwards
      .open(this.nodeId, job.ports, job.remote_ports)
      .catch((err: Error) => this.note(`port forwards not opened: ${err.message}`));
  }

  /** A sweep node's run phase: cell after cell until the queue is empty (then the node's
   *  job has exited well, whatever its cells did) or the node stops serving. */
  private async serveCells(sweep: SweepWiring): Promise<JobEvent | null> {
    const attempt = this.state.attempt;
    const isServing = () =>
      !this.detached && this.state.phase === 'run' && this.state.attempt === attempt;
    const server = new CellServer(
      {
        runId: this.deps.manager.record.runId,
        nodeId: this.nodeId,
        job: this.deps.job,
        link: () => this.ensureLink(),
        phases: this.phases,
        transfers: () => this.transfers(),
        isServing,
        lastSeq: () => this.deps.datastream.lastSeq(this.nodeId, 'agent'),
        drain: (link) => this.drainLogs(link),
        note: this.note,
        now: this.deps.now,
        onRunStarted: () => {
          this.jobEndedAt = null;
          this.markRunStarted();
          this.deps.crashPoint('job-running');
        },
      },
      sweep,
    );
    this.cells = server;
    this.openForwards();
    await server.serve();
    return isServing() ? { type: 'JobExited', code: 0, signal: null } : null;
  }

  /** The run phase ended under a running cell (a stop, a lost node, a fault): the cell is
   *  settled now, before the commands that follow. */
  private leaveCell(event: JobEvent, prev: JobState, next: JobState): void {
    if (!this.cells || prev.phase !== 'run') return;
    if (next.phase === 'run' && next.attempt === prev.attempt) return;
    if (event.type === 'OperatorStop')
      this.cells.abandon({ cause: 'stopped', ...(event.reason ? { reason: event.reason } : {}) });
    else if (event.type === 'NodeLost')
      this.cells.abandon({ cause: event.cause ?? 'node_lost', reason: event.reason });
    else if (event.type === 'NodeFault')
      this.cells.abandon({ cause: 'fault', reason: event.reason });
  }

  private async cancel(): Promise<null> {
    if (!this.link) return null;
    const running = this.phases.running();
    await this.link.request('cancel', { graceMs: this.deps.cancelGraceMs });
    await Promise.all(running.map((p) => this.phases.exited(p)));
    await this.drainLogs(this.link);
    return null;
  }

  private async collect(): Promise<JobEvent> {
    if (!this.deps.manager.record.agent) return { type: 'OutputsCollected', missing: [] };
    const { job, outputsDir } = this.deps;
    if (this.deps.sweep) return this.collectStoppedCell();
    return pullJobOutputs(this.transfers(), job.outputs, outputsDir, (pulled) => {
      this.collected = true;
      this.pulled = pulled;
      void this.renewer?.renewNow();
    });
  }

  /** A sweep node collects only a cell a stop caught (each cell brought its own). */
  private async collectStoppedCell(): Promise<JobEvent> {
    this.collected = true;
    const into = this.cells?.collectInto();
    if (!into) return { type: 'OutputsCollected', missing: [] };
    let pulled: PulledOutputs | null = null;
    if (this.deps.job.outputs.length > 0)
      await pullJobOutputs(this.transfers(), this.deps.job.outputs, into.dir, (p) => {
        pulled = p;
      });
    this.cells?.collected(pulled);
    return { type: 'OutputsCollected', missing: [] };
  }

  private transfers(): TransferDeps {
    return {
      link: this.ensureLink(),
      address: () => this.address(),
      note: this.note,
      now: this.deps.now,
    };
  }

  private async teardown(): Promise<JobEvent> {
    const { manager } = this.deps;
    void this.deps.forwards?.close(this.nodeId); // the job is over, kept warm or not
    const plan = teardownPlan({
      keep: this.deps.keep,
      stage: manager.record.stage,
      selfTeardown: this.selfTeardown,
      hasDeadMan: Boolean(this.deps.deadMan),
      status: this.state.status,
    });
    if (plan.kind === 'keep') {
      // The link stays, so the switch keeps being renewed while this process runs.
      this.note(plan.note);
      void this.renewer?.renewNow();
      return { type: 'TeardownComplete', error: null };
    }
    this.closeLink();
    if (plan.kind === 'redo-destroy') manager.resume();
    else manager.send({ type: 'Destroy', reason: plan.reason });
    const settled = (r: NodeRecord) => isDestroySettled(r, this.deps.teardownMaxAttempts);
    return teardownOutcome(await manager.waitFor(settled));
  }

  private ensureLink(): AgentLink {
    if (this.link) return this.link;
    const rec = this.deps.manager.record;
    if (!rec.agent || !rec.connection) throw new Error(`node ${rec.id} has no joined agent`);
    this.link = new AgentLink({
      connect: this.deps.connect(rec.connection),
      address: rec.agent.address,
      fromSeq: () => this.logs.fromSeq(),
      onRecords: (records) => this.logs.store(records),
      onPhase: (st) => {
        if (st.phase === 'run' && st.state === 'exited' && this.jobEndedAt === null) {
          this.jobEndedAt = this.deps.now();
          void this.renewer?.renewNow();
        }
        this.phases.observe(st);
      },
      onTeardown: (record) => this.onSelfTeardown(record),
      onState: (state, detail) => this.onLinkState(rec, state, detail),
    });
    this.armDeadMan(this.link);
    return this.link;
  }

  private onLinkState(rec: NodeRecord, state: LinkState, detail: string): void {
    if (state === 'lost' && this.checkingClaim) {
      if (++this.claimLinkFailures >= 2) this.claimLinkLost?.(detail);
    } else if (state === 'lost') void this.checkLost(rec, detail);
    // A new connection may be to a restarted agent, which holds no switch until told.
    if (state === 'connected') void this.renewer?.renewNow();
    const change = linkViewChange(this.linkState, state, detail);
    if (!change) return;
    if (change.note) this.note(change.note);
    this.linkState = change.view;
    this.deps.onChange();
  }

  private armDeadMan(link: AgentLink): void {
    const dm = this.deps.deadMan;
    if (!dm || this.renewer) return;
    const state = (): RenewalState => {
      const active = this.state.phase !== 'done' && this.state.phase !== 'tearing_down';
      return {
        inUse: active || dm.isNodeInUse(),
        collected: this.collected,
        jobEndedAt: this.jobEndedAt,
      };
    };
    this.renewer = new DeadManRenewer({
      everyMs: dm.everyMs,
      send: (params) => link.request('lease', params, 15_000),
      params: () => dm.params(state()),
      onRenewed: (params) => dm.onRenewed(params, state()),
      onFailed: (message) => this.note(`dead-man switch not renewed: ${message}`),
    });
    this.renewer.start();
  }

  /** The node's own switch fired: it is stopping its job and destroying itself. The app
   *  still destroys the lease the usual way (idempotent) and confirms it gone. */
  private onSelfTeardown(record: TeardownRecord): void {
    if (this.checkingClaim) return; // the claim check replaces a node whose switch fired
    // On a machine that does not bill, an unattended job's uncollected outputs wait on the
    // node with its agent: nothing is torn down, collection and teardown go on as usual.
    if (record.state === 'outputs_kept') {
      this.note(`${record.reason}: its outputs waited on the node; collecting them now`);
      return;
    }
    const action = selfTeardownAction({
      isDetached: this.detached,
      isKnown: this.selfTeardown !== null,
      isArmed: Boolean(this.deps.deadMan),
      isJobDone: this.state.phase === 'done',
    });
    if (action === 'ignore' || !this.deps.deadMan) return;
    this.selfTeardown = this.deps.deadMan.onSelfTeardown(record);
    this.renewer?.stop();
    this.note(`${this.selfTeardown} (the node is tearing itself down)`);
    this.nodeGone(action, this.selfTeardown);
  }

  private async checkLost(rec: NodeRecord, detail: string): Promise<void> {
    const isLeaseGone = await this.deps.isLeaseGone(rec).catch(() => false);
    if (!isLeaseGone) {
      // Beside the look at what the reconciler saw: a node unreachable for another reason
      // does not hold that up.
      void this.findTeardownOnDisk(rec);
      return this.checkPreempted(rec);
    }
    if (!isNodeLost({ isLeaseGone, isDetached: this.detached })) return;
    // Once per lease, and only for the lease the job is on now: a link of a lease that a
    // recovery already replaced may still report its losses.
    if (rec.label !== this.deps.manager.record.label || this.lostLeases.has(rec.label)) return;
    this.lostLeases.add(rec.label);
    // The provider's own words for what ended it (Slurm: "the time limit was reached").
    const why = (await this.deps.whyLeaseGone?.(rec).catch(() => null)) ?? null;
    const loss = leaseGoneDecision({
      explained: this.deps.deadMan?.explainLoss() ?? null,
      detail: why?.words ?? detail,
      isJobDone: this.state.phase === 'done',
    });
    if (why && why.cause !== 'node_lost' && !loss.selfTeardown && loss.action === 'job-lost') {
      // Not a lost node: a time limit reached or a cancel from outside is not recovered; a
      // preemption is, per [recovery]. What the job left is collected where it still can be.
      if (why.cause === 'preempted')
        return this.dispatch({ type: 'NodeLost', reason: why.words, cause: 'preempted' });
      await this.collectAfterEnd(rec);
      return this.dispatch({ type: 'NodeFault', reason: why.words });
    }
    if (loss.selfTeardown) {
      this.selfTeardown ??= loss.selfTeardown;
      this.renewer?.stop();
      this.note(loss.selfTeardown);
    } else if (loss.action === 'job-lost') this.deps.recordLostHost(rec, loss.reason);
    this.nodeGone(loss.action, loss.reason);
  }

  /** The link finds no agent and the lease is still listed: the node's switch may have
   *  fired while nobody was attached and its agent ended itself (isTeardownToActOn). Its
   *  record, read from the node's disk over a shell of its own, is then taken as the node's
   *  own words: nothing is collected, the lease is destroyed (confirmed). */
  private async findTeardownOnDisk(rec: NodeRecord): Promise<void> {
    if (!this.deps.deadMan || !rec.connection || !rec.agent) return;
    const now = this.deps.now();
    if (this.teardownLookAt !== null && now - this.teardownLookAt < TEARDOWN_LOOK_MS) return;
    this.teardownLookAt = now;
    const attempt = this.state.attempt;
    const connect = this.deps.connect(rec.connection);
    const record = await readTeardownOnDisk(connect, rec.agent.address, TEARDOWN_LOOK_MS);
    if (!record || !isTeardownToActOn(record.state)) return;
    // Acted on once, for the lease the job is on now, unless the job has moved on meanwhile
    // (detached, done, the lease found gone or taken back, a recovery begun).
    const isCurrent =
      !this.detached &&
      this.state.phase !== 'done' &&
      this.state.attempt === attempt &&
      this.selfTeardown === null &&
      rec.label === this.deps.manager.record.label &&
      !this.lostLeases.has(rec.label);
    if (!isCurrent) return;
    this.lostLeases.add(rec.label);
    this.note(
      `the node's agent does not answer; its dead-man switch fired: ${record.reason} (${record.state})`,
    );
    this.onSelfTeardown(record);
  }

  /** A gone node's outputs, from where its files still are (afterEndShell), best effort. */
  private async collectAfterEnd(rec: NodeRecord): Promise<void> {
    const { job, outputsDir } = this.deps;
    if (job.outputs.length === 0 || !rec.agent) return;
    const shell = await this.deps.afterEndShell?.(rec).catch(() => null);
    if (!shell) return;
    try {
      const pulled = await pullOutputs(shell, rec.agent.address, job.outputs, outputsDir, {
        incremental: true,
      });
      this.pulled = pulled;
      this.note(`after the node ended, ${outputsNote(pulled)}`);
    } catch (err) {
      this.note(`outputs not collected after the node ended: ${(err as Error).message}`);
    } finally {
      await shell.close();
    }
  }

  /** The link dropped and the lease is still listed: an interruptible node the provider
   *  took back (the reconciler saw it stopped) is recovered elsewhere when `[recovery]`
   *  covers `preempted`; otherwise the job waits (a raised bid resumes it). */
  private checkPreempted(rec: NodeRecord): void {
    const taken = this.deps.leaseInterruption(rec);
    // An instance that exited (its host or container died) is a node lost, on the
    // provider's word: recovered per `[recovery]`, else the run fails. One outbid or
    // stopped was taken back (preempted): recovered per `[recovery]`, else the job waits
    // for it to run again (a raised bid).
    const cause = taken === 'exited' ? 'node_lost' : 'preempted';
    if (this.detached) return;
    if (!taken) {
      // The reconciler marks an interruption within one pass of the listing that shows it;
      // while the link stays down, look at what it recorded again shortly (a ledger read).
      this.interruptionLook ??= setTimeout(() => {
        this.interruptionLook = null;
        if (this.linkState === 'lost' && this.state.phase !== 'done') this.checkPreempted(rec);
      }, INTERRUPTION_LOOK_MS);
      return;
    }
    if (cause === 'preempted' && !this.state.recoverOn.includes(cause)) return;
    if (rec.label !== this.deps.manager.record.label || this.lostLeases.has(rec.label)) return;
    this.lostLeases.add(rec.label);
    if (cause === 'node_lost') this.deps.recordLostHost(rec, `the provider says ${taken}`);
    this.dispatch({ type: 'NodeLost', reason: `the provider says ${taken}`, cause });
  }

  private nodeGone(action: NodeGoneAction, reason: string): void {
    if (action === 'job-lost') return this.dispatch({ type: 'NodeLost', reason });
    this.closeLink();
    this.deps.manager.send({ type: 'Destroy', reason });
  }

  private closeLink(): void {
    this.dropEarlySession();
    if (this.interruptionLook) clearTimeout(this.interruptionLook);
    this.interruptionLook = null;
    this.renewer?.stop();
    this.link?.close();
    this.link = null;
  }

  /** Waits until every log record the agent has written is stored here. */
  private async drainLogs(link: AgentLink): Promise<void> {
    const { lastSeq } = await link.request('status', {});
    await this.logs.waitStored(lastSeq, DRAIN_DEADLINE_MS);
  }

  private address() {
    const agent = this.deps.manager.record.agent;
    if (!agent) throw new Error('no agent');
    return agent.address;
  }
}
