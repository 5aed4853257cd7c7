// Connections kept a little while after their user is done with them, for the next user of
// the same endpoint: OpenSSH's ControlPersist, in this process. A `tender run` on a fresh
// host opened five ssh connections one after another (the provider's listing, the
// bootstrap, the agent link, its bulk connection, the provider's destroy), each a full
// handshake: ~130 ms of key exchange on loopback, ~7 round trips on a far link. With the
// pool they share two. A connection is lent only while it is up, has no channel open, and
// never carried a port forward, and once it has run `exit 0` (a drop nobody saw yet is
// found there, not in the user's first command); it is parked at most LINGER_MS (wall
// clock: a laptop that slept finds it stale) and closed for good when the pool closes.
import type { Duplex } from 'node:stream';
import { within } from '../base/within';
import type { ExecChannel, NodeShell } from './node-shell';

/** A connection the pool can keep: an SshShell. */
export interface PoolableShell extends NodeShell {
  readonly closed: Promise<string>;
  /** The connection is gone (dropped, or closed). */
  readonly isGone: boolean;
  /** Whether it may be lent again once its user's channels are gone (waits up to `ms`). */
  settle(ms: number): Promise<boolean>;
}

export type Dial = (signal: AbortSignal) => Promise<PoolableShell>;

/** How long a connection nobody uses is kept: long enough for the next step of a run (the
 *  link after the bootstrap, the destroy after a short job's push), short enough that a
 *  sleep or a NAT timeout rarely finds it (the agent link trusts a spare for 30 s). */
export const LINGER_MS = 15_000;
/** How long a returned connection may take to see its user's channels closed (one round
 *  trip each); past it, the connection is closed rather than kept. */
const SETTLE_MS = 2_000;
/** A parked connection that does not run `exit 0` within this is not lent. */
const ANSWER_MS = 3_000;
/** A light user takes a connection parked less than this ago without the `exit 0`. */
export const FRESH_MS = 1_000;

interface Parked {
  shell: PoolableShell;
  at: number;
  timer: NodeJS.Timeout;
}

/** A connection dialed before the pool had users (`adopt`). */
interface Early {
  dialing: Promise<PoolableShell>;
  cancel: () => void;
  timer: NodeJS.Timeout;
}

/** Who holds a lent connection: how many users, and whether they are light (see
 *  `connector`): a light user's connection is shared with other light users. */
interface Held {
  key: string;
  holders: number;
  light: boolean;
}

export class ShellPool {
  private readonly parked = new Map<string, Parked[]>();
  private readonly held = new Map<PoolableShell, Held>();
  /** A light user's dial in flight, which other light users of its key join. */
  private readonly lightDials = new Map<string, Promise<PoolableShell>>();
  private readonly warming = new Set<string>();
  /** Connections dialed before this pool had users (`adopt`), each for its key's first. */
  private readonly early = new Map<string, Early>();
  private readonly abort = new AbortController();
  private isClosed = false;

  constructor(private readonly opts: { lingerMs?: () => number; now?: () => number } = {}) {}

  /** A connector that lends a connection parked for `key` when there is one, and dials
   *  otherwise; the shell it returns goes back to the pool when its user closes it.
   *  `spare`: with a connection in hand, dial one more behind it (parked for the next
   *  user), so the two a job's link needs are both ready when the bootstrap ends.
   *  `light`: a user of short commands and small messages (an agent link's control
   *  channel, a provider's listing or destroy): it shares a connection other light users
   *  hold or are dialing (channels multiplexed, as OpenSSH's ControlMaster does), so a
   *  run's start, whose listing and link would each dial, dials once. A bulk transfer is
   *  never light: it has a connection of its own. */
  connector(
    key: string,
    dial: Dial,
    opts: { spare?: boolean; light?: boolean } = {},
  ): (signal: AbortSignal) => Promise<NodeShell> {
    const light = opts.light === true;
    return async (signal) => {
      const sharing = light ? this.sharedLight(key) : null;
      const shared = sharing ? await sharing : null; // no wait at all when there is none
      if (shared) return this.lend(key, shared, true);
      // A light user's way to a connection (a kept one, else a dial) is noted before its
      // first wait, so a light user arriving meanwhile joins it instead of dialing too.
      const acquiring = (async () =>
        (await this.takeEarly(key)) ??
        (await this.takeAlive(key, light)) ??
        (await dial(signal)))();
      if (light) this.noteLightDial(key, acquiring);
      const shell = await acquiring;
      if (opts.spare) this.warm(key, dial);
      return this.lend(key, shell, light);
    };
  }

  /** A connection dialed for `key` before this pool had users (the CLI dials a run's hosts
   *  while its core opens: nodes/early-dials.ts): the first user of `key` takes it, while it
   *  is still being dialed too (it was never used: no `exit 0` is asked). One that fails
   *  leaves that user to dial as usual; one nobody takes within the linger (LINGER_MS where
   *  parking is off: it was never parked) is closed. `cancel` ends a dial still in flight
   *  (the pool closing). */
  adopt(key: string, dialing: Promise<PoolableShell>, cancel: () => void): void {
    const ms = this.lingerMs > 0 ? this.lingerMs : LINGER_MS;
    const e: Early = { dialing, cancel, timer: setTimeout(() => this.dropEarly(key, e), ms) };
    e.timer.unref();
    dialing.catch(() => this.dropEarly(key, e)); // never an unhandled rejection
    if (this.isClosed) return this.dropEarly(key, e);
    this.dropEarly(key, this.early.get(key));
    this.early.set(key, e);
  }

  private async takeEarly(key: string): Promise<PoolableShell | null> {
    const e = this.early.get(key);
    if (!e) return null;
    this.early.delete(key);
    clearTimeout(e.timer);
    const shell = await e.dialing.catch(() => null);
    return shell && !shell.isGone ? shell : null;
  }

  /** Ends an early dial nobody took (or will). */
  private dropEarly(key: string, e: Early | undefined): void {
    if (!e) return;
    if (this.early.get(key) === e) this.early.delete(key);
    clearTimeout(e.timer);
    e.cancel();
    e.dialing.then(
      (shell) => shell.close(),
      () => {},
    );
  }

  /** A connection light users of `key` hold, or the one they are getting (joined), still
   *  up; null when there is none (synchronously: no wait before the caller notes its own). */
  private sharedLight(key: string): Promise<PoolableShell | null> | null {
    const held = this.heldLight(key);
    if (held) return Promise.resolve(held);
    const pending = this.lightDials.get(key);
    if (!pending) return null;
    return pending.then(
      (shell) => (shell.isGone ? null : shell),
      () => null,
    );
  }

  /** A connection light users of `key` hold, still up. */
  private heldLight(key: string): PoolableShell | null {
    for (const [shell, h] of this.held)
      if (h.key === key && h.light && h.holders > 0 && !shell.isGone) return shell;
    return null;
  }

  private noteLightDial(key: string, dialing: Promise<PoolableShell>): void {
    this.lightDials.set(key, dialing);
    const forget = () => {
      if (this.lightDials.get(key) === dialing) this.lightDials.delete(key);
    };
    dialing.then(forget, forget);
  }

  /** A parked connection for `key` that answers a command now (one round trip, against
   *  a handshake's seven): one that dropped unseen (a NAT, a sleep, a killed session whose
   *  close is still on its way) is closed and the next tried. A `light` user takes one
   *  parked under FRESH_MS ago without asking: it was in use a moment ago, and what a
   *  light user runs is retried on a fresh connection anyway (the link reconnects, a
   *  provider's destroy is tried again), while the question costs the round trips of a
   *  run's last step (its destroy). */
  private async takeAlive(key: string, light: boolean): Promise<PoolableShell | null> {
    for (let p = this.take(key); p; p = this.take(key)) {
      if (light && this.now() - p.at < FRESH_MS && !p.shell.isGone) return p.shell;
      if (await answers(p.shell)) return p.shell;
      void p.shell.close();
    }
    return null;
  }

  /** Closes every parked connection; nothing is parked after this (a returned one closes). */
  async closeAll(): Promise<void> {
    this.isClosed = true;
    this.abort.abort(new Error('the connection pool closed'));
    for (const [key, e] of [...this.early]) this.dropEarly(key, e);
    const all = [...this.parked.values()].flat();
    this.parked.clear();
    await Promise.allSettled(
      all.map((p) => {
        clearTimeout(p.timer);
        return p.shell.close();
      }),
    );
  }

  /** How many connections are parked for `key` (tests, and the bench's notes). */
  parkedFor(key: string): number {
    return this.parked.get(key)?.length ?? 0;
  }

  private take(key: string): Parked | null {
    const list = this.parked.get(key) ?? [];
    while (list.length > 0) {
      const p = list.shift()!;
      clearTimeout(p.timer);
      if (this.now() - p.at < this.lingerMs) return p;
      void p.shell.close(); // outlived its linger (a sleep): never lent
    }
    this.parked.delete(key);
    return null;
  }

  /** Parks `shell` for the next user of `key` once its channels are gone, or closes it. */
  private async giveBack(key: string, shell: PoolableShell): Promise<void> {
    const isFit = !this.isClosed && this.lingerMs > 0 && (await shell.settle(SETTLE_MS));
    if (!isFit || this.isClosed) return shell.close();
    const p: Parked = {
      shell,
      at: this.now(),
      timer: setTimeout(() => this.expire(key, p), this.lingerMs),
    };
    p.timer.unref(); // a parked connection never keeps a finished process waiting
    const list = this.parked.get(key) ?? [];
    list.push(p);
    this.parked.set(key, list);
    // A connection that drops while parked leaves the pool at once.
    void shell.closed.then(() => this.expire(key, p));
  }

  private expire(key: string, p: Parked): void {
    const list = this.parked.get(key);
    const i = list?.indexOf(p) ?? -1;
    if (i < 0) return; // lent, or expired already
    list!.splice(i, 1);
    if (list!.length === 0) this.parked.delete(key);
    clearTimeout(p.timer);
    void p.shell.close();
  }

  /** Dials one connection for `key` in the background and parks it, unless one is parked
   *  or being dialed already, or light users hold or dial one (the link's control, which a
   *  spare is for, joins theirs). A failure is nobody's: the next user dials. */
  private warm(key: string, dial: Dial): void {
    if (this.isClosed || this.lingerMs <= 0 || this.warming.has(key) || this.parkedFor(key) > 0)
      return;
    if (this.lightDials.has(key) || this.heldLight(key)) return;
    this.warming.add(key);
    void dial(this.abort.signal)
      .then((shell) => this.giveBack(key, shell))
      .catch(() => {})
      .finally(() => this.warming.delete(key));
  }

  private lend(key: string, shell: PoolableShell, light: boolean): NodeShell {
    const h = this.held.get(shell);
    if (h) h.holders++;
    else this.held.set(shell, { key, holders: 1, light });
    return new LentShell(
      shell,
      () => this.release(shell),
      () => this.lend(key, shell, light),
    );
  }

  /** One user is done with `shell`: the last one gives it back. */
  private async release(shell: PoolableShell): Promise<void> {
    const h = this.held.get(shell);
    if (!h) return shell.close();
    if (--h.holders > 0) return;
    this.held.delete(shell);
    await this.giveBack(h.key, shell);
  }

  private get lingerMs(): number {
    return this.opts.lingerMs?.() ?? LINGER_MS;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }
}

async function answers(shell: PoolableShell): Promise<boolean> {
  const ch = shell.exec('exit 0');
  ch.stdout.resume();
  ch.stderr.resume();
  const st = await within(ch.exit, ANSWER_MS);
  if (!st) ch.close();
  return st?.code === 0;
}

/** A pooled connection as one user sees it: closing it returns it to the pool, and from
 *  then on it is closed for this user (its `closed` has settled, a new command fails). */
class LentShell implements NodeShell {
  readonly description: string;
  readonly closed: Promise<string>;
  readonly openSocket?: (path: string) => Promise<ExecChannel>;
  readonly openTcp?: (host: string, port: number) => Promise<Duplex>;
  readonly listenRemote?: NodeShell['listenRemote'];
  private returned: Promise<void> | null = null;
  private markReturned!: (reason: string) => void;

  constructor(
    private readonly inner: PoolableShell,
    private readonly giveBack: () => Promise<void>,
    private readonly lendAgain: () => NodeShell,
  ) {
    this.description = inner.description;
    const returned = new Promise<string>((r) => (this.markReturned = r));
    this.closed = Promise.race([inner.closed, returned]);
    if (inner.openSocket) this.openSocket = (path) => this.live().openSocket!(path);
    if (inner.openTcp) this.openTcp = (host, port) => this.live().openTcp!(host, port);
    if (inner.listenRemote)
      this.listenRemote = (port, onConnection) => this.live().listenRemote!(port, onConnection);
  }

  exec(command: string): ExecChannel {
    return this.live().exec(command);
  }

  execRoundTripMs(): number | undefined {
    return this.inner.execRoundTripMs?.();
  }

  share(): NodeShell {
    this.live();
    return this.lendAgain();
  }

  close(): Promise<void> {
    if (!this.returned) {
      this.markReturned('closed by Tender');
      this.returned = this.giveBack();
    }
    return this.returned;
  }

  private live(): PoolableShell {
    if (this.returned) throw new Error(`the connection to ${this.description} was closed`);
    return this.inner;
  }
}
