import type {
  OutputsGlance,
  Phase,
  PhaseState,
  StatusResult,
  TeardownRecord,
} from '../../../src-agent/wire/protocol';
import type { HostSetupOutcome } from '../host/host-setup-wait';
import { AgentLink, type AgentLinkDeps, type LinkState } from '../../nodes/agent-link';
import type { NodeRecord } from '../../ledger/node-record';
import { DeadManRenewer } from '../guards/dead-man-renewer';
import type { AgentLogSink } from '../link/job-logs';
import { PeriodicPulls, type PullRound } from '../transfers/periodic-pulls';
import { PhaseTracker } from '../link/phase-tracker';
import type { CellServer } from '../sweep/cell-server';
import { closeEarlySession, type EarlySession } from '../transfers/job-transfers';
import type { ClaimCheck } from './claim-check';
import type { JobLink } from './job-link';
import type { NodeJobDeps, RenewalState } from './node-job-deps';

/** A fresh node's first push, begun before its agent joined (early-push.ts). */
export interface EarlyPush {
  /** The lease it pushes to: a push for another lease (a replaced boot) is not used. */
  readonly label: string;
  /** Settles when the push is done; rejects with why it failed. */
  readonly done: Promise<void>;
  /** It failed (known once `done` has rejected). */
  hasFailed(): boolean;
  abort(): void;
}

export type Phases = StatusResult['phases'];

/** What a phase waits for before its start (prelude.ts). */
export interface Prelude {
  phase: Phase;
  /** The host setup's outcome; null where this phase does not wait for it. */
  host: Promise<HostSetupOutcome> | null;
  /** The agent's phase states once configured; null where configure waits for the gang
   *  (a distributed rank's environment) and is sent at the start. */
  configured: Promise<Phases> | null;
}

/** What an attempt reports to its job, and asks of it. Reports stop once it is disposed. */
export interface AttemptOwner {
  deps: NodeJobDeps;
  logs: AgentLogSink;
  note(line: string): void;
  onTeardown(record: TeardownRecord): void;
  onLinkState(rec: NodeRecord, state: LinkState, detail: string): void;
  /** Whether the job still holds the node (running, or not yet torn down). */
  isJobActive(): boolean;
}

/**
 * Everything that lives for one attempt of a node's job: its agent link and the dead-man
 * renewals riding on it, the phases its agent reported, the periodic pulls and their
 * timer, the look at a link that stays down, a claimed warm node's check, the cells a
 * sweep node serves. A recovery (or a claimed node replaced) disposes the attempt and
 * makes a new one: nothing of one attempt can act on the next one's node.
 */
export class Attempt {
  readonly phases = new PhaseTracker();
  /** The final collection brought the outputs back (the switch may then go sooner). */
  collected = false;
  /** When the agent reported the run phase exited (null: not yet). */
  jobEndedAt: number | null = null;
  /** The node's own switch fired: the destroy reason the ledger shows. */
  selfTeardown: string | null = null;
  /** A sweep node's server of cells (null: none yet). */
  cells: CellServer | null = null;
  /** When the node's disk was last looked at for a teardown record (null: never). */
  teardownLookAt: number | null = null;
  /** A claimed warm node being checked: link losses and teardowns are the check's. */
  claim: ClaimCheck | null = null;
  /** The outputs as the agent saw them once the run exited, asked beside the drain: the
   *  final collection's first look (outputs/glance.ts), a round trip sooner. */
  glanceAhead: Promise<OutputsGlance | null> | null = null;
  /** The first phase's prelude, begun while the workspace is pushed (prelude.ts). */
  private prelude: Prelude | null = null;
  private current: JobLink | null = null;
  private renewer: DeadManRenewer | null = null;
  private pulls: PeriodicPulls | null = null;
  private look: NodeJS.Timeout | null = null;
  private early: Promise<EarlySession | null> | null = null;
  private earlyPush: EarlyPush | null = null;
  private disposed = false;

  constructor(
    /** The job's attempt number (0-based) this serves. */
    readonly n: number,
    private readonly owner: AttemptOwner,
  ) {}

  get isDisposed(): boolean {
    return this.disposed;
  }

  get hasLink(): boolean {
    return this.current !== null;
  }

  /** The link to the node's agent, opened on first use. */
  link(): JobLink {
    if (this.disposed) throw new Error(`attempt ${this.n + 1} is over`);
    if (this.current) return this.current;
    const { deps } = this.owner;
    const rec = deps.manager.record;
    if (!rec.agent || !rec.connection) throw new Error(`node ${rec.id} has no joined agent`);
    const linkDeps: AgentLinkDeps = {
      connect: deps.connect(rec.connection),
      ...(deps.connectLight ? { connectControl: deps.connectLight(rec.connection) } : {}),
      address: rec.agent.address,
      fromSeq: () => this.owner.logs.fromSeq(),
      onRecords: (records) => this.owner.logs.store(records),
      onPhase: (st) => this.onPhase(st),
      onTeardown: (record) => {
        if (!this.disposed) this.owner.onTeardown(record);
      },
      onState: (state, detail) => {
        if (!this.disposed) this.owner.onLinkState(rec, state, detail);
      },
    };
    this.current = deps.openLink?.(linkDeps) ?? new AgentLink(linkDeps);
    this.armDeadMan(this.current);
    return this.current;
  }

  renewNow(): void {
    void this.renewer?.renewNow();
  }

  stopRenewing(): void {
    this.renewer?.stop();
  }

  /** A claimed node's push session, opened while its link handshakes. */
  holdEarlySession(session: Promise<EarlySession | null>): void {
    this.early = session;
  }

  async takeEarlySession(): Promise<EarlySession | null> {
    const early = this.early;
    this.early = null;
    return early ? await early : null;
  }

  /** A fresh node's push, begun before its agent joined (early-push.ts); a newer one (a
   *  replaced boot's lease) replaces it. */
  holdEarlyPush(push: EarlyPush | null): void {
    if (!push) return;
    if (this.disposed) return push.abort();
    this.earlyPush?.abort();
    this.earlyPush = push;
  }

  /** An early push to `label` is held and has not failed (one begun on a guess, before the
   *  bootstrap's checks answered, goes on when they do). */
  keepsEarlyPush(label: string): boolean {
    return this.earlyPush?.label === label && !this.earlyPush.hasFailed();
  }

  /** Holds the prelude a phase takes (`takePrelude`) when it starts. */
  holdPrelude(p: Prelude): void {
    this.prelude = p;
  }

  /** The prelude begun for `phase`, taken out; null where none was. */
  takePrelude(phase: Phase): Prelude | null {
    const p = this.prelude?.phase === phase ? this.prelude : null;
    this.prelude = null;
    return p;
  }

  takeEarlyPush(): EarlyPush | null {
    const push = this.earlyPush;
    this.earlyPush = null;
    return push;
  }

  /** Pulls every `everyMs` while the run phase runs; stopped with the phase or the attempt. */
  startPulls(everyMs: number, round: PullRound): PeriodicPulls {
    void this.pulls?.stop();
    this.pulls = new PeriodicPulls(everyMs, () => (this.disposed ? Promise.resolve() : round()));
    return this.pulls;
  }

  /** Runs `look` once after `ms`, unless one is already due or the attempt ends first. */
  lookAgain(ms: number, look: () => void): void {
    this.look ??= setTimeout(() => {
      this.look = null;
      if (!this.disposed) look();
    }, ms);
  }

  /** Closes the link and what rides on it; the attempt may open it again (a teardown). */
  closeLink(): void {
    void this.takeEarlySession().then(closeEarlySession);
    this.takeEarlyPush()?.abort();
    if (this.look) clearTimeout(this.look);
    this.look = null;
    this.renewer?.stop(); // stopped for good: a link opened again arms no second switch
    this.current?.close();
    this.current = null;
  }

  /** The attempt is over: its link, renewals, pulls and timers all stop for good. */
  dispose(): void {
    if (this.disposed) return;
    this.closeLink();
    void this.pulls?.stop();
    this.pulls = null;
    this.disposed = true;
  }

  private onPhase(st: PhaseState): void {
    if (this.disposed) return;
    if (st.phase === 'run' && st.state === 'exited' && this.jobEndedAt === null) {
      this.jobEndedAt = this.owner.deps.now();
      this.renewNow();
    }
    this.phases.observe(st);
  }

  private armDeadMan(link: JobLink): void {
    const dm = this.owner.deps.deadMan;
    if (!dm || this.renewer) return;
    const state = (): RenewalState => ({
      inUse: this.owner.isJobActive() || dm.isNodeInUse(),
      collected: this.collected,
      jobEndedAt: this.jobEndedAt,
    });
    this.renewer = new DeadManRenewer({
      everyMs: dm.everyMs,
      send: (params) => link.request('lease', params, 15_000),
      params: () => dm.params(state()),
      onRenewed: (params) => dm.onRenewed(params, state()),
      onFailed: (message) => this.owner.note(`dead-man switch not renewed: ${message}`),
    });
    this.renewer.start();
  }
}
