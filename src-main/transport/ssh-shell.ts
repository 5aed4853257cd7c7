// A NodeShell over one authenticated ssh2 connection (connecting: ssh-dial.ts): a cap on
// open channels, busy opens retried, every live channel dropped when the connection goes.
import type { Duplex } from 'node:stream';
import type { Client, ClientChannel } from 'ssh2';
import { ChannelLimit } from './channel-limit';
import { noteExecRoundTrip, quickestExecRoundTrip } from './exec-round-trip';
import type { ExecChannel, NodeShell } from './node-shell';
import { dialSsh, type ConnectSshOptions, type SshTarget } from './ssh-dial';
import { closedError, redactSecrets } from './ssh-errors';
import { EarlyInput } from './ssh-early-input';
import { SshExecChannel } from './ssh-exec-channel';
import { type PtyChannel, SshPtyChannel } from './ssh-pty-channel';
import { openTcpChannel, TcpListeners } from './ssh-tcp';

export type { HostKeyCheck, HostKeyInfo } from './host-key-info';
export type { ConnectSshOptions, SshTarget } from './ssh-dial';
export { SshError, type SshErrorKind } from './ssh-errors';
export type { PtyChannel } from './ssh-pty-channel';

const MAX_CHANNELS = 8; // OpenSSH's MaxSessions is 10; an 11th channel fails, not waits
const CLOSE_GRACE_MS = 2_000; // a polite disconnect that gets no answer is then cut
// SSH_MSG_CHANNEL_OPEN_FAILURE reasons (RFC 4254) worth a retry for a session channel:
// OpenSSH answers "connect failed: open failed" (2) when it has no free session slot.
const BUSY_OPEN_REASONS = new Set([1, 2, 4]); // prohibited, connect failed, resource shortage
const OPEN_RETRIES = 8; // 25 ms doubling to 0.5 s: ~2.5 s before giving up

/** Connects and authenticates, retrying with backoff until `deadlineMs` has passed
 *  (ssh-dial.ts). Throws SshError (or the signal's reason when aborted). */
export function connectSsh(target: SshTarget, opts: ConnectSshOptions): Promise<SshShell> {
  return dialSsh(
    target,
    opts,
    (client, description, endpoint) => new SshShell(client, description, endpoint),
  );
}

/** A NodeShell over one authenticated ssh2 connection. At most MAX_CHANNELS channels are
 *  open at once; more wait their turn. Never parses what the node prints. */
export class SshShell implements NodeShell {
  readonly description: string;
  /** Resolves with the reason once the connection is gone (dropped, or closed by us). */
  readonly closed: Promise<string>;
  // Private (#): the client holds the private key in its config; keep it out of inspection.
  readonly #client: Client;
  readonly #endpoint: string;
  readonly #limit = new ChannelLimit(MAX_CHANNELS);
  /** Each open channel, with the promise that settles once it is gone. */
  readonly #live = new Map<{ drop(): void }, Promise<unknown>>();
  readonly #listeners: TcpListeners;
  /** A command's input goes right behind its request (ssh-early-input.ts). */
  readonly #early: EarlyInput;
  #closeReason: string | null = null;
  #lastError: string | null = null;
  #isGone = false;
  #hasRunCommand = false;
  /** A port forward ran over this connection (a TCP channel or a remote listener). */
  #hasRelayed = false;

  constructor(client: Client, description: string, endpoint: string) {
    this.#client = client;
    this.#endpoint = endpoint;
    this.description = description;
    client.setNoDelay(true); // exec round trip 48 ms → 2.5 ms
    this.#listeners = new TcpListeners(client);
    this.#early = new EarlyInput(client);
    client.on('error', (err: Error) => {
      this.#lastError ??= redactSecrets(err.message);
    });
    this.closed = new Promise((resolve) => {
      client.once('close', () => {
        this.#isGone = true;
        this.#limit.shut();
        for (const ch of this.#live.keys()) ch.drop();
        this.#live.clear();
        resolve(this.#closeReason ?? this.#lastError ?? 'the server closed the connection');
      });
    });
  }

  get isGone(): boolean {
    return this.#isGone;
  }

  /** Commands whose input started right behind their request (tests, the bench's notes). */
  get earlyInputs(): number {
    return this.#early.handedEarly;
  }

  execRoundTripMs(): number | undefined {
    return quickestExecRoundTrip(this.#endpoint);
  }

  exec(command: string): ExecChannel {
    this.#hasRunCommand = true;
    const ticket = this.#limit.take();
    const ch = new SshExecChannel(ticket);
    this.#track(ch, ch.exit);
    void ticket.ready.then(async (isGranted) => {
      if (!isGranted || ch.isClosing || this.#isGone) return ch.fail();
      ch.markRequested();
      const asked = performance.now();
      try {
        await this.#open(
          (cb) => this.#early.exec(command, (early) => ch.feed(early), cb),
          () => ch.isClosing,
          (stream) => {
            noteExecRoundTrip(this.#endpoint, performance.now() - asked);
            return ch.attach(stream);
          },
        );
      } catch {
        ch.fail();
      }
    });
    return ch;
  }

  async openSocket(path: string): Promise<ExecChannel> {
    this.#turnNagleOff();
    const ticket = this.#limit.take();
    if (!(await ticket.ready)) throw closedError(this.#endpoint, await this.#reasonNow());
    const ch = new SshExecChannel(ticket);
    ch.markRequested();
    try {
      // No retry: "connect failed" here is a socket nobody listens on, not a busy server.
      await new Promise<void>((resolve, reject) =>
        this.#client.openssh_forwardOutStreamLocal(path, (err, stream) =>
          err ? reject(err) : resolve(ch.attach(stream)),
        ),
      );
    } catch (err) {
      ch.fail();
      throw new Error(
        `could not reach ${path} on ${this.description}: ${redactSecrets((err as Error).message)}`,
        { cause: err },
      );
    }
    this.#track(ch, ch.exit);
    return ch;
  }

  /** A direct-tcpip channel to `host:port` as the node sees it (a port forward). Outside
   *  the channel cap: sshd's MaxSessions counts sessions only, and a browser opens several
   *  connections at once. */
  async openTcp(host: string, port: number): Promise<Duplex> {
    this.#hasRelayed = true;
    this.#turnNagleOff();
    return openTcpChannel(this.#client, host, port, this.description, () => this.#isGone);
  }

  /** Listens on the node's 127.0.0.1:`port` (tcpip-forward, as `ssh -R`); sshd drops the
   *  listener with the connection. */
  listenRemote(port: number, onConnection: (stream: Duplex) => void): Promise<() => Promise<void>> {
    this.#hasRelayed = true;
    this.#turnNagleOff();
    return this.#listeners.listen(port, onConnection, this.description);
  }

  /** A terminal on the node: the user's login shell, or `command` run with a pty. */
  async openPty(opts: {
    cols: number;
    rows: number;
    term: string;
    command?: string;
  }): Promise<PtyChannel> {
    this.#hasRunCommand = true;
    const ticket = this.#limit.take();
    if (!(await ticket.ready)) throw closedError(this.#endpoint, await this.#reasonNow());
    let pty: SshPtyChannel;
    try {
      const window = { cols: opts.cols, rows: opts.rows, term: opts.term };
      const { command } = opts;
      pty = await this.#open(
        (cb) =>
          command === undefined
            ? this.#client.shell(window, cb)
            : this.#client.exec(command, { pty: window }, cb),
        () => false,
        (stream) => new SshPtyChannel(stream, ticket),
      );
    } catch (err) {
      ticket.release();
      if (this.#isGone) throw closedError(this.#endpoint, await this.#reasonNow());
      throw new Error(
        `could not open a terminal on ${this.description}: ${redactSecrets((err as Error).message)}`,
        { cause: err },
      );
    }
    this.#track(pty, pty.exit);
    return pty;
  }

  /** Whether this connection is fit to lend to another user (shell-pool.ts) once the
   *  channels its user closed are gone (waited for up to `ms`): still up, no channel open,
   *  and it never carried a port forward (a TCP stream or listener is not a channel here). */
  async settle(ms: number): Promise<boolean> {
    if (this.#isGone || this.#hasRelayed) return false;
    if (this.#live.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((r) => (timer = setTimeout(r, ms)));
      await Promise.race([Promise.all(this.#live.values()), late]);
      clearTimeout(timer);
    }
    return !this.#isGone && this.#live.size === 0;
  }

  async close(): Promise<void> {
    if (!this.#isGone) {
      this.#closeReason ??= 'closed by Tender';
      this.#client.end();
      const cut = setTimeout(() => this.#client.destroy(), CLOSE_GRACE_MS);
      await this.closed;
      clearTimeout(cut);
    }
  }

  /** sshd turns Nagle off (TCP_NODELAY) for a connection once a session runs a command,
   *  never for one that only relays: then an answer written in two pieces waits ~40 ms for
   *  our delayed ACK. One `exit 0` (not waited for) fixes it. */
  #turnNagleOff(): void {
    if (this.#hasRunCommand || this.#isGone) return;
    const nodelay = this.exec('exit 0');
    nodelay.stdout.resume();
    nodelay.stderr.resume();
  }

  /** Opens a channel and hands it to `wire` inside ssh2's callback: the exit status of a
   *  quick command can arrive in the same read as the open confirmation, and an `exit`
   *  emitted before the listeners are on (even a microtask later) is lost.
   *  sshd counts a session we closed until its next loop, so a burst of opens right after
   *  closes can be refused ("open failed") below our own cap: those are retried. */
  async #open<T>(
    start: (cb: (err: Error | undefined, stream: ClientChannel) => void) => void,
    isCancelled: () => boolean,
    wire: (stream: ClientChannel) => T,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await new Promise<T>((resolve, reject) =>
          start((err, stream) => (err ? reject(err) : resolve(wire(stream)))),
        );
      } catch (err) {
        const reason = (err as { reason?: unknown }).reason;
        const isBusy = typeof reason === 'number' && BUSY_OPEN_REASONS.has(reason);
        if (!isBusy || attempt >= OPEN_RETRIES || this.#isGone || isCancelled()) throw err;
        await new Promise((r) => setTimeout(r, Math.min(25 * 2 ** attempt, 500)));
      }
    }
  }

  #track(ch: { drop(): void }, done: Promise<unknown>): void {
    if (this.#isGone) return ch.drop();
    const gone = done.then(() => void this.#live.delete(ch));
    this.#live.set(ch, gone);
  }

  async #reasonNow(): Promise<string> {
    return this.#isGone ? await this.closed : 'the connection is closing';
  }
}
