// setup and run: started at most once each, cancelled by process group, their state kept
// in `D/phases/` and announced to subscribers.
import { mkdirSync, rmSync } from 'node:fs';
import { type NodePaths, phaseFile } from '../../wire/paths';
import { PHASES, type Phase, type PhaseState } from '../../wire/protocol';
import type { LogStore } from '../logs/log-store';
import { type PhaseExit, type PhaseLaunch, spawnPhase } from './phase-process';
import { readPhases, writePhase } from './phase-store';
import { spawnAfterRunSetup } from './run-setup';
import { forgetGroup, isGroupAlive, recordGroup, signalGroup } from './process-group';

/** How often a phase left running by an earlier daemon is checked for having ended. */
const ORPHAN_POLL_MS = 1000;

interface Tracked {
  state: PhaseState;
  exited: Promise<void>;
  markExited: () => void;
  killAt?: number;
  killTimer?: NodeJS.Timeout;
  /** Told of the exit before it is announced (`StartOptions.onExited`). */
  onExited?: (state: PhaseState) => void;
}

export interface StartOptions {
  /** Runs once the phase has exited, after its exit line and before the exit is announced
   *  to subscribers: what it logs (a setup's environment outcome) is stored before the app
   *  learns of the exit, so a client draining the log at the exit has it. */
  onExited?: (state: PhaseState) => void;
}

export interface SupervisorDeps {
  paths: NodePaths;
  log: LogStore;
  now: () => number;
  /** Told of every state change, after the log holds everything logged before it. */
  onPhase: (state: PhaseState) => void;
  /** Told when a phase has exited, once its output is in the log and before its exit line
   *  is: what else it left to log (its metrics) comes before that line. */
  onExiting?: (phase: Phase) => void;
  /** What a phase's exit state says besides its status (the run's outputs and the node's
   *  cache then: what the app would ask at the exit). */
  atExit?: (phase: Phase) => Promise<Pick<PhaseState, 'glance' | 'cache'>>;
}

export class Supervisor {
  private readonly phases = new Map<Phase, Tracked>();
  private readonly starting = new Map<Phase, Promise<number>>();

  constructor(private readonly deps: SupervisorDeps) {}

  /** Takes over the phases a previous daemon recorded. One still marked running cannot be
   *  watched any more (its pipes went with that daemon): its outcome is unknown. */
  recover(): void {
    for (const state of Object.values(readPhases(this.deps.paths))) {
      const tracked = this.track(state);
      if (state.state !== 'running') {
        tracked.markExited();
        continue;
      }
      const poll = setInterval(() => {
        if (state.pid !== null && isGroupAlive(state.pid)) return;
        clearInterval(poll);
        this.deps.log.append(
          'agent',
          'info',
          `${state.phase} ended while no agent was watching; its exit code is unknown`,
        );
        void this.finish(state.phase, { code: null, signal: null });
      }, ORPHAN_POLL_MS);
    }
  }

  states(): Partial<Record<Phase, PhaseState>> {
    const out: Partial<Record<Phase, PhaseState>> = {};
    for (const [phase, t] of this.phases) out[phase] = { ...t.state };
    return out;
  }

  /** Starts `phase` unless it was started before (running or exited). */
  async start(
    phase: Phase,
    launch: PhaseLaunch,
    opts: StartOptions = {},
  ): Promise<{ pid: number; alreadyStarted: boolean }> {
    const existing = this.phases.get(phase);
    if (existing) return { pid: existing.state.pid ?? 0, alreadyStarted: true };
    const inFlight = this.starting.get(phase);
    if (inFlight) return { pid: await inFlight, alreadyStarted: true };
    mkdirSync(launch.cwd, { recursive: true });
    mkdirSync(this.deps.paths.output, { recursive: true });
    const onExit = (exit: PhaseExit) => void this.finish(phase, exit);
    const spawning = launch.runSetup
      ? spawnAfterRunSetup(phase, launch, launch.runSetup, this.deps.log, {
          onExit,
          onLeader: (pid) => void this.replaceLeader(phase, pid, launch.redact(launch.command)),
          isCancelled: () => this.phases.get(phase)?.state.cancelled === true,
        })
      : spawnPhase(phase, launch, this.deps.log, onExit);
    this.starting.set(phase, spawning);
    try {
      const pid = await spawning;
      recordGroup(this.deps.paths.pids, pid);
      const first = launch.runSetup ? ', run_setup first' : '';
      this.deps.log.append(
        'agent',
        'info',
        `${phase} started (pid ${pid}${first}): ${launch.redact(launch.command)}`,
      );
      const tracked = this.track({
        phase,
        command: launch.redact(launch.command),
        state: 'running',
        pid,
        startedAt: this.deps.now(),
        exitedAt: null,
        code: null,
        signal: null,
        cancelled: false,
      });
      tracked.onExited = opts.onExited;
      await this.publish(phase);
      return { pid, alreadyStarted: false };
    } finally {
      this.starting.delete(phase);
    }
  }

  /** run_setup succeeded and the phase's own command runs: its group is the one a cancel
   *  signals and the one `pids/` must name from now on. */
  private async replaceLeader(phase: Phase, pid: number, command: string): Promise<void> {
    const t = this.phases.get(phase);
    if (!t) return;
    recordGroup(this.deps.paths.pids, pid);
    if (t.state.pid !== null) forgetWhenGone(this.deps.paths.pids, t.state.pid);
    t.state.pid = pid;
    this.deps.log.append('agent', 'info', `${phase} command started (pid ${pid}): ${command}`);
    // A cancel that reached run_setup as it exited 0 still stops the command.
    if (t.state.cancelled) signalGroup(pid, 'SIGTERM');
    await this.publish(phase);
  }

  /** Records `phase` as done without running it (setup whose environment is ready), so
   *  that it is started at most once like any other and its state reaches subscribers. */
  async recordSkipped(phase: Phase, command: string): Promise<void> {
    if (this.phases.has(phase) || this.starting.has(phase)) return;
    const now = this.deps.now();
    const tracked = this.track({
      phase,
      command,
      state: 'exited',
      pid: null,
      startedAt: now,
      exitedAt: now,
      code: 0,
      signal: null,
      cancelled: false,
      cached: true,
    });
    await this.publish(phase);
    tracked.markExited();
  }

  /** The phase's state once it has exited; undefined when it was never started. */
  async whenExited(phase: Phase): Promise<PhaseState | undefined> {
    const t = this.phases.get(phase);
    if (!t) return undefined;
    await t.exited;
    return { ...t.state };
  }

  /** SIGTERM to the phase's process group (every running phase when none is named), then
   *  SIGKILL to whatever of the group is left after `graceMs`. `stoppedBy`: the agent stops
   *  it on a rule of the job's policy (its words, kept in the phase's state). */
  async cancel(phase: Phase | undefined, graceMs: number, stoppedBy?: string): Promise<void> {
    for (const p of phase ? [phase] : PHASES) {
      const t = this.phases.get(p);
      if (!t || t.state.state !== 'running' || t.state.pid === null) continue;
      const pgid = t.state.pid;
      const killAt = this.deps.now() + graceMs;
      if (t.killAt !== undefined && t.killAt <= killAt) continue; // an earlier deadline stands
      clearTimeout(t.killTimer);
      t.killAt = killAt;
      t.state.cancelled = true;
      if (stoppedBy !== undefined) t.state.stoppedBy ??= stoppedBy;
      this.deps.log.append(
        'agent',
        'info',
        `cancelling ${p}: SIGTERM to process group ${pgid}, SIGKILL after ${graceMs} ms`,
      );
      signalGroup(pgid, 'SIGTERM');
      t.killTimer = setTimeout(() => {
        if (!isGroupAlive(pgid)) return;
        this.deps.log.append(
          'agent',
          'info',
          `${p} still running ${graceMs} ms after SIGTERM: SIGKILL`,
        );
        signalGroup(pgid, 'SIGKILL');
      }, graceMs);
      await this.publish(p);
    }
  }

  /** Forgets exited phases (a new attempt may run them again); refuses while one runs. */
  reset(): boolean {
    if (
      [...this.phases.values()].some((t) => t.state.state === 'running') ||
      this.starting.size > 0
    ) {
      return false;
    }
    this.phases.clear();
    for (const phase of PHASES) rmSync(phaseFile(this.deps.paths, phase), { force: true });
    return true;
  }

  /** Resolves once every phase that was started has exited. */
  async whenAllExited(): Promise<void> {
    await Promise.all([...this.phases.values()].map((t) => t.exited));
  }

  private track(state: PhaseState): Tracked {
    let markExited!: () => void;
    const exited = new Promise<void>((resolve) => (markExited = resolve));
    const tracked: Tracked = { state, exited, markExited };
    this.phases.set(state.phase, tracked);
    return tracked;
  }

  private async finish(phase: Phase, exit: PhaseExit): Promise<void> {
    const t = this.phases.get(phase);
    if (!t || t.state.state === 'exited') return;
    this.deps.onExiting?.(phase);
    const { pid } = t.state;
    const how = exit.signal
      ? `was killed by ${exit.signal}`
      : exit.code === null
        ? 'ended'
        : `exited with code ${exit.code}`;
    this.deps.log.append('agent', 'info', `${phase} ${how}`);
    Object.assign(t.state, {
      state: 'exited',
      exitedAt: this.deps.now(),
      code: exit.code,
      signal: exit.signal,
    });
    // A cancelled group keeps its SIGKILL timer for children that outlive the leader.
    if (pid !== null && !isGroupAlive(pid)) clearTimeout(t.killTimer);
    if (pid !== null) forgetWhenGone(this.deps.paths.pids, pid);
    try {
      t.onExited?.({ ...t.state });
    } catch (err) {
      this.deps.log.append('agent', 'stderr', `after ${phase} exited: ${(err as Error).message}`);
    }
    Object.assign(t.state, await this.deps.atExit?.(phase).catch(() => ({})));
    await this.publish(phase, { withSeq: true });
    t.markExited();
  }

  /** Flushes the log, then writes the phase file and tells subscribers. */
  private async publish(phase: Phase, opts: { withSeq?: boolean } = {}): Promise<void> {
    const t = this.phases.get(phase);
    if (!t) return;
    await this.deps.log.flush();
    if (opts.withSeq) t.state.seq = this.deps.log.durableSeq;
    const snapshot = { ...t.state };
    writePhase(this.deps.paths, snapshot);
    this.deps.onPhase(snapshot);
  }
}

/** Removes `pids/<pgid>` once no process of the group is left; until then an outside
 *  kill can still find the stragglers. Gives up (keeps the file) after a minute. */
function forgetWhenGone(pidsDir: string, pgid: number, triesLeft = 60): void {
  if (!isGroupAlive(pgid)) return forgetGroup(pidsDir, pgid);
  if (triesLeft > 0)
    setTimeout(() => forgetWhenGone(pidsDir, pgid, triesLeft - 1), ORPHAN_POLL_MS).unref();
}
