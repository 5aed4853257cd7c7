import type { LinkState } from '../../nodes/agent-link';
import type { NodeRecord } from '../../ledger/node-record';
import { isDestroySettled } from '../provisioning/boot-replacement';
import { checkpointStore } from '../checkpoints/checkpoint-transfer';
import type { CheckpointGenerations } from '../checkpoints/generations';
import { jobTransition, type JobCommand, type JobEvent, type JobState } from '../fsm/job-fsm';
import { AgentLogSink, eventNotes } from '../link/job-logs';
import { resumeCommand } from '../fsm/job-resume';
import { journalJobStep, stepNote } from '../fsm/job-step-record';
import { linkViewChange, type ViewLinkState } from '../link/link-view';
import type { PulledOutputs } from '../outputs/pull';
import { cellAbandonment } from '../sweep/cell-abandonment';
import { teardownOutcome, teardownPlan } from '../teardown/teardown-plan';
import { Attempt } from './attempt';
import type { JobHost } from './job-host';
import { LossWatch } from './loss-watch';
import type { NodeJobDeps } from './node-job-deps';
import { collect, materialize } from './node-transfers';
import { provision, recover } from './provisioning';
import { cancelPhases, runPhase } from './run-phase';

export type { DeadManWiring, NodeJobDeps, RenewalState } from './node-job-deps';

/**
 * Runs the job on one node: executes the commands of the job FSM (job-fsm.ts) and feeds
 * their outcomes back as events. Every transition is journaled and logged. What lives for
 * one attempt is an Attempt (attempt.ts), made anew by a recovery; each concern acts in a
 * module of its own (provisioning, node-transfers, run-phase, loss-watch), and the
 * decisions are pure functions beside them. This class holds the job's state and order.
 */
export class NodeJob implements JobHost {
  readonly logs: AgentLogSink;
  readonly note: (line: string) => void;
  readonly done: Promise<JobState>;
  /** Settles once the agent has started the run phase, or the job has ended without it. */
  readonly runStarted: Promise<void>;
  linkState: ViewLinkState = 'none';
  pulled: PulledOutputs | null = null;
  private state: JobState;
  private now: Attempt;
  private detached = false;
  /** Picked up in the run phase after a detach or a crash (its run may have started). */
  private isResumedInRun = false;
  private store: CheckpointGenerations | null = null;
  private readonly loss: LossWatch;
  private finish!: (s: JobState) => void;
  private markStarted!: () => void;

  constructor(
    readonly nodeId: string,
    state: JobState,
    readonly deps: NodeJobDeps,
  ) {
    this.state = state;
    this.logs = new AgentLogSink(
      deps.datastream,
      nodeId,
      deps.manager.record.claimedFrom?.agentSeq ?? 0,
      () => deps.manager.record.agentSeqOffset ?? 0,
    );
    this.note = eventNotes(deps.datastream, nodeId, deps.now);
    this.now = this.newAttempt();
    this.loss = new LossWatch(this, () => this.linkState === 'lost');
    this.runStarted = new Promise<void>((r) => (this.markStarted = r));
    this.done = new Promise((r) => (this.finish = r));
    void this.done.then(() => this.markStarted());
    if (state.phase === 'done') this.finish(state);
  }

  get current(): JobState {
    return this.state;
  }

  get attempt(): Attempt {
    return this.now;
  }

  get isDetached(): boolean {
    return this.detached;
  }

  get checkpoints(): CheckpointGenerations {
    this.store ??= checkpointStore(this.deps.outputsDir);
    return this.store;
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
    this.now.closeLink();
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
    return this.now.cells?.cancel(cellId, this.deps.cancelGraceMs) ?? Promise.resolve(false);
  }

  /** Picks up a job that a previous process was driving (after detach or a crash). */
  resume(): void {
    this.isResumedInRun = this.state.phase === 'run';
    const cmd = resumeCommand(this.state.phase);
    this.note(`resuming in phase ${this.state.phase}`);
    if (cmd) void this.execute([cmd]);
  }

  markRunStarted(): void {
    this.markStarted();
  }

  replaceAttempt(): Attempt {
    this.now.dispose();
    this.now = this.newAttempt();
    return this.now;
  }

  dispatch(event: JobEvent): void {
    if (this.detached) return;
    const step = jobTransition(this.state, event);
    if (step.ignored) return;
    const prev = this.state;
    this.state = step.state;
    journalJobStep(this.deps.ledger, this.nodeId, event, prev, step.state, this.deps.now());
    const abandoned = this.now.cells && cellAbandonment(event, prev, step.state);
    if (abandoned) this.now.cells?.abandon(abandoned);
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
        return provision(this);
      case 'MaterializeWorkspace':
        return materialize(this);
      case 'RunSetup':
        return runPhase(this, 'setup', { isResumedInRun: this.isResumedInRun });
      case 'RunJob':
        return runPhase(this, 'run', { isResumedInRun: this.isResumedInRun });
      case 'CancelJob':
        return cancelPhases(this);
      case 'CollectOutputs':
        return collect(this);
      case 'TeardownNode':
        return this.teardown();
      case 'RecoverNode':
        return recover(this);
    }
  }

  /** The job's receipt; a failure to write one is noted, never the job's. */
  private recordReceipt(state: JobState): void {
    try {
      this.deps.recordReceipt?.({ state, pulled: this.pulled });
    } catch (err) {
      this.note(`no receipt written: ${(err as Error).message}`);
    }
  }

  private async teardown(): Promise<JobEvent> {
    const { manager } = this.deps;
    void this.deps.forwards?.close(this.nodeId); // the job is over, kept warm or not
    const plan = teardownPlan({
      keep: this.deps.keep,
      stage: manager.record.stage,
      selfTeardown: this.now.selfTeardown,
      hasDeadMan: Boolean(this.deps.deadMan),
      status: this.state.status,
    });
    if (plan.kind === 'keep') {
      // The link stays, so the switch keeps being renewed while this process runs.
      this.note(plan.note);
      this.now.renewNow();
      return { type: 'TeardownComplete', error: null };
    }
    this.now.closeLink();
    if (plan.kind === 'redo-destroy') manager.resume();
    else manager.send({ type: 'Destroy', reason: plan.reason });
    const settled = (r: NodeRecord) => isDestroySettled(r, this.deps.teardownMaxAttempts);
    return teardownOutcome(await manager.waitFor(settled));
  }

  private newAttempt(): Attempt {
    return new Attempt(this.state.attempt, {
      deps: this.deps,
      logs: this.logs,
      note: this.note,
      onTeardown: (record) => this.loss.onSelfTeardown(record),
      onLinkState: (rec, state, detail) => this.onLinkState(rec, state, detail),
      isJobActive: () => this.state.phase !== 'done' && this.state.phase !== 'tearing_down',
    });
  }

  private onLinkState(rec: NodeRecord, state: LinkState, detail: string): void {
    const claim = this.now.claim;
    if (state === 'lost' && claim) claim.linkLost(detail);
    else if (state === 'lost') void this.loss.onLinkLost(rec, detail);
    // A new connection may be to a restarted agent, which holds no switch until told.
    if (state === 'connected') this.now.renewNow();
    const change = linkViewChange(this.linkState, state, detail);
    if (!change) return;
    if (change.note) this.note(change.note);
    this.linkState = change.view;
    this.deps.onChange();
  }
}
