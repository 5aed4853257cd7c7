// A distributed run's gang (docs/distributed.md): every rank arrives once its node is set
// up; when all have, rank 0 listens on the master port and every other rank's agent must
// reach it (the pre-flight); then each rank is told its environment, configures its agent,
// and all start together (a second barrier, so the starts are as close as the links
// allow). After the start the stop rule decides: `all` — one rank failing stops the others
// and fails the run, saying which rank; `rank0` — the run ends with rank 0.
import type { JobEvent, JobState } from '../fsm/job-fsm';
import type { AgentRequest } from '../host/host-setup-wait';
import { gangEnv } from './gang-env';
import type { PeerAddress } from './peer-address';

export interface GangMember {
  rank: number;
  request: AgentRequest;
  address: PeerAddress;
  gpus: number;
}

export type GangStart =
  { kind: 'go'; env: Record<string, string> } | { kind: 'stopped'; reason: string };

export interface GangDeps {
  size: number;
  masterPort: number;
  stopRule: 'all' | 'rank0';
  /** A line for every rank's pane. */
  note(line: string): void;
  /** Stops a rank's job: with a reason it fails with it; without, it is cancelled. */
  stopRank(rank: number, reason?: string): void;
  /** Restarts a healthy rank's run with the gang (a new attempt: GangRestart). */
  restartRank(rank: number, reason: string): void;
  now(): number;
}

export interface GangOutcome {
  status: 'completed' | 'failed' | 'cancelled';
  failedReason: string | null;
}

/** How long rank 0 listens for the pre-flight, and how long a rank tries to reach it. */
const PROBE_LISTEN_MS = 60_000;
const PROBE_CONNECT_MS = 15_000;

export class Gang {
  private readonly members = new Map<number, GangMember>();
  /** Each arrived rank's wait for its environment. */
  private readonly resolvers = new Map<number, (s: GangStart) => void>();
  private readonly ready = new Set<number>();
  private readonly readyWaiters: ((s: GangStart) => void)[] = [];
  private stopped: string | null = null;
  private started = false;
  private readonly ended = new Set<number>();
  /** How many times the gang restarted after a rank was lost. */
  private generation = 0;
  private outcomeOf: GangOutcome | null = null;
  /** When each rank asked its agent to start `run` (for the barrier skew). */
  readonly startTimes = new Map<number, number>();

  constructor(private readonly d: GangDeps) {}

  /** Rank `m.rank` is set up. Resolves once every rank is and the pre-flight passed (its
   *  environment), or when the gang was stopped first. */
  arrive(m: GangMember): Promise<GangStart> {
    if (this.stopped) return Promise.resolve({ kind: 'stopped', reason: this.stopped });
    this.members.set(m.rank, m);
    const p = new Promise<GangStart>((r) => this.resolvers.set(m.rank, r));
    if (this.members.size === this.d.size) void this.preflight();
    else this.d.note(`rank ${m.rank} ready; waiting for ${this.d.size - this.members.size} more`);
    return p;
  }

  /** Rank `rank` has configured its agent. Resolves when all have: start now. */
  configured(rank: number): Promise<GangStart> {
    if (this.stopped) return Promise.resolve({ kind: 'stopped', reason: this.stopped });
    this.ready.add(rank);
    const p = new Promise<GangStart>((r) => this.readyWaiters.push(r));
    if (this.ready.size === this.d.size) {
      this.started = true;
      for (const w of this.readyWaiters.splice(0)) w({ kind: 'go', env: {} });
    }
    return p;
  }

  /** A rank picked up after a detach or a crash, its run already started on its node: the
   *  gang started before (no barrier, no pre-flight again). */
  markResumed(rank: number): void {
    this.started = true;
    this.ready.add(rank);
  }

  markStart(rank: number): void {
    this.startTimes.set(rank, this.d.now());
  }

  /** What each rank's job did: a rank that ended before the start stops the gang; after
   *  the start the stop rule decides. */
  observe(rank: number, event: JobEvent, prev: JobState, next: JobState): void {
    const left =
      prev.phase !== next.phase &&
      (next.phase === 'collecting' || next.phase === 'tearing_down' || next.phase === 'done');
    if (next.attempt !== prev.attempt) {
      // Recovered on a new node ([recovery]): before the start it simply arrives again;
      // after it, the whole gang restarts (never a half gang). A rank restarted with the
      // gang is one of those restarts.
      if (event.type !== 'GangRestart' && this.started)
        this.restart(rank, next.recoveredFrom ?? 'it was lost');
      return;
    }
    if (!left || this.ended.has(rank)) return;
    this.ended.add(rank);
    const exit =
      event.type === 'JobExited'
        ? event.code !== null
          ? `exit ${event.code}`
          : `killed by ${event.signal ?? 'a signal'}`
        : null;
    const failed = event.type === 'JobExited' ? event.code !== 0 : next.status !== 'completed';
    const why = exit ?? next.reason ?? next.status;
    if (!this.started) {
      this.stop(`rank ${rank} ${failed ? 'failed' : 'ended'} before the start (${why})`);
      return;
    }
    if (this.d.stopRule === 'rank0') {
      if (rank !== 0) return;
      this.outcomeOf = failed
        ? { status: 'failed', failedReason: `rank 0 failed (${why})` }
        : { status: 'completed', failedReason: null };
      this.stopOthers(0, undefined, 'rank 0 ended: the other ranks are stopped (stop = "rank0")');
      return;
    }
    if (!failed || this.outcomeOf) return;
    if (event.type === 'OperatorStop' && event.reason === undefined) {
      this.outcomeOf = { status: 'cancelled', failedReason: 'cancelled' };
      return;
    }
    const reason = `rank ${rank} failed (${why})`;
    this.outcomeOf = {
      status: event.type === 'OperatorStop' && !next.reason ? 'cancelled' : 'failed',
      failedReason: reason,
    };
    if (event.type === 'OperatorStop') return; // a stop of the whole run stops every rank anyway
    this.stopOthers(rank, `${reason}: stopped with it`, `${reason}: stopping the other ranks`);
  }

  /** The run's outcome when the gang decides it (null: the usual aggregate of its nodes). */
  outcome(): GangOutcome | null {
    return (
      this.outcomeOf ?? (this.stopped ? { status: 'failed', failedReason: this.stopped } : null)
    );
  }

  /** The spread of the ranks' starts, in ms (null until every rank started). */
  skewMs(): number | null {
    if (this.startTimes.size < this.d.size) return null;
    const t = [...this.startTimes.values()];
    return Math.max(...t) - Math.min(...t);
  }

  /** Rank `rank` is being recovered on a new node: every other rank stops its run and
   *  starts again with it, as a new attempt, from the checkpoints its workspace holds (the
   *  recovered rank's are restored from the last pull). A rank that has already ended
   *  cannot restart: then the run fails. */
  private restart(rank: number, why: string): void {
    const ended = [...this.ended].filter((r) => r !== rank);
    if (ended.length > 0) {
      const reason = `rank ${rank} was lost (${why}) after rank ${ended[0]} had ended: a gang restarts whole or not at all`;
      this.outcomeOf = { status: 'failed', failedReason: reason };
      this.stopOthers(-1, reason, `${reason}: stopping every rank`);
      return;
    }
    this.generation++;
    this.members.clear();
    this.resolvers.clear();
    this.ready.clear();
    this.readyWaiters.splice(0);
    this.startTimes.clear();
    this.started = false;
    const reason = `rank ${rank} was lost (${why})`;
    this.d.note(`── ${reason}: the whole gang restarts (restart ${this.generation}) ──`);
    for (let r = 0; r < this.d.size; r++)
      if (r !== rank) this.d.restartRank(r, `${reason}: the gang restarts`);
  }

  private stopOthers(rank: number, reason: string | undefined, note: string): void {
    this.d.note(note);
    for (const r of this.members.keys())
      if (r !== rank && !this.ended.has(r)) this.d.stopRank(r, reason);
    for (let r = 0; r < this.d.size; r++)
      if (r !== rank && !this.members.has(r)) this.d.stopRank(r, reason);
  }

  private stop(reason: string): void {
    if (this.stopped) return;
    this.stopped = reason;
    this.d.note(`${reason}: the gang does not start`);
    for (const w of this.resolvers.values()) w({ kind: 'stopped', reason });
    this.resolvers.clear();
    for (const w of this.readyWaiters.splice(0)) w({ kind: 'stopped', reason });
    for (let r = 0; r < this.d.size; r++) if (!this.ended.has(r)) this.d.stopRank(r, reason);
  }

  /** Rank 0 listens; every other rank must read its banner; then each gets its env. */
  private async preflight(): Promise<void> {
    const ranks = [...Array(this.d.size).keys()].map((r) => this.members.get(r)!);
    const rank0 = ranks[0]!;
    const port = this.d.masterPort;
    const seen = rank0.address.portSeen(port);
    const master = `${rank0.address.host}:${seen}`;
    this.d.note(
      `every rank is ready: checking that ranks 1–${this.d.size - 1} reach rank 0 at ${master}`,
    );
    try {
      await rank0.request('probe.listen', { port, ttlMs: PROBE_LISTEN_MS }, 10_000);
    } catch (err) {
      return this.stop(
        `rank 0 (${rank0.address.host}) cannot listen on port ${port}: ${agentText(err)} — pick another master_port`,
      );
    }
    const results = await Promise.all(
      ranks.slice(1).map(async (m) => {
        try {
          const r = await m.request(
            'probe.connect',
            { host: rank0.address.host, port: seen, timeoutMs: PROBE_CONNECT_MS },
            PROBE_CONNECT_MS + 5_000,
          );
          return { m, ...r };
        } catch (err) {
          return { m, ok: false, error: agentText(err) };
        }
      }),
    );
    await rank0.request('probe.close', { port }, 10_000).catch(() => undefined);
    const bad = results.find((r) => !r.ok);
    if (bad)
      return this.stop(
        `rank ${bad.m.rank} (${bad.m.address.host}) cannot reach rank 0 at ${master} (${bad.error}): ${probeHint(bad.error ?? '')}`,
      );
    const slowest = Math.max(0, ...results.map((r) => r.ms ?? 0));
    this.d.note(
      `every rank reached rank 0 at ${master} (slowest ${slowest} ms): starting all ${this.d.size} ranks`,
    );
    const addrs = ranks.map((m) => ({ host: m.address.host, gpus: m.gpus }));
    const envs = ranks.map((m) =>
      gangEnv({ rank: m.rank, ranks: addrs, masterPort: port, masterPortSeen: seen }),
    );
    if (this.stopped) return; // a rank failed while the pre-flight ran
    for (const m of ranks) this.resolvers.get(m.rank)?.({ kind: 'go', env: envs[m.rank]! });
    this.resolvers.clear();
  }
}

/** An agent's refusal without the link's `agent <op>: ` prefix. */
function agentText(err: unknown): string {
  return (err as Error).message.replace(/^agent [a-z_.]+: /, '');
}

function probeHint(error: string): string {
  if (error === 'ECONNREFUSED')
    return "nothing listens there from this rank's side: a firewall that rejects, or the port not mapped to rank 0";
  if (error === 'timeout')
    return 'no answer: a firewall that drops, or an address this rank cannot route to';
  if (error === 'not_the_probe')
    return 'something else answers at that address and port: a port mapping to another machine?';
  return 'check that the nodes can reach each other on that port';
}
