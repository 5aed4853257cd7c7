import type { Duplex } from 'node:stream';
import ssh2, {
  Client,
  type ClientChannel,
  type ConnectConfig,
  type ServerHostKeyAlgorithm,
} from 'ssh2';
import { ChannelLimit } from './channel-limit';
import { noteExecRoundTrip, quickestExecRoundTrip } from './exec-round-trip';
import { algorithmsForKeyType, type HostKeyCheck, hostKeyInfo } from './host-key-info';
import type { ExecChannel, NodeShell } from './node-shell';
import {
  classifySshFailure,
  closedError,
  finalSshError,
  redactSecrets,
  SshError,
} from './ssh-errors';
import { SshExecChannel } from './ssh-exec-channel';
import { type PtyChannel, SshPtyChannel } from './ssh-pty-channel';
import { openTcpChannel, TcpListeners } from './ssh-tcp';

export type { HostKeyCheck, HostKeyInfo } from './host-key-info';
export { SshError, type SshErrorKind } from './ssh-errors';
export type { PtyChannel } from './ssh-pty-channel';

export interface SshTarget {
  host: string;
  port: number;
  user: string;
  privateKey: string | Buffer;
  passphrase?: string;
}

export interface ConnectSshOptions {
  hostKey: HostKeyCheck;
  signal: AbortSignal;
  /** How long to keep trying, from the call, before giving up with the last error's class. */
  deadlineMs: number;
  /** Told about each failed attempt that will be retried, before the wait. */
  onRetry?: (attempt: number, err: SshError, delayMs: number) => void;
  /** Rejected keys retried before giving up (default 2). A freshly rented container may
   *  install its authorized_keys well after sshd listens: for those, until the deadline. */
  authRetries?: number;
  keepaliveIntervalMs?: number;
}

// ssh2's keepalive is off by default, and then a dead link hangs for ever: a dead node is
// noticed after 3 unanswered probes, ~36–48 s.
const KEEPALIVE_MS = 12_000;
const KEEPALIVE_COUNT = 3;
const READY_TIMEOUT_MS = 20_000; // TCP + key exchange + auth to a far, busy node
const MIN_ATTEMPT_MS = 1_000; // a last attempt shorter than this cannot finish a handshake
const MAX_CHANNELS = 8; // OpenSSH's MaxSessions is 10; an 11th channel fails, not waits
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
// Cloud images may install authorized_keys a little after sshd starts listening, so a
// rejected key is retried a couple of times, slowly; then it is the key.
const AUTH_RETRIES = 2;
const AUTH_RETRY_MS = 2_000;
const CLOSE_GRACE_MS = 2_000; // a polite disconnect that gets no answer is then cut
// SSH_MSG_CHANNEL_OPEN_FAILURE reasons (RFC 4254) worth a retry for a session channel:
// OpenSSH answers "connect failed: open failed" (2) when it has no free session slot.
const BUSY_OPEN_REASONS = new Set([1, 2, 4]); // prohibited, connect failed, resource shortage
const OPEN_RETRIES = 8; // 25 ms doubling to 0.5 s: ~2.5 s before giving up

/** Connects and authenticates, retrying with backoff until `deadlineMs` has passed. A host
 *  key refusal is final at once; a rejected key after AUTH_RETRIES. Throws SshError (or the
 *  signal's reason when aborted). */
export async function connectSsh(target: SshTarget, opts: ConnectSshOptions): Promise<SshShell> {
  const endpoint = formatEndpoint(target.host, target.port);
  checkKeyParses(target, endpoint);
  const started = Date.now();
  const until = started + opts.deadlineMs;
  let delay = FIRST_RETRY_MS;
  let authFailures = 0;
  for (let attempt = 1; ; attempt++) {
    opts.signal.throwIfAborted();
    const budget = Math.min(READY_TIMEOUT_MS, Math.max(MIN_ATTEMPT_MS, until - Date.now()));
    let err: SshError;
    try {
      return await connectOnce(target, opts, endpoint, budget);
    } catch (e) {
      opts.signal.throwIfAborted();
      if (!(e instanceof SshError)) throw e;
      err = e;
    }
    if (err.kind === 'host_key') throw err;
    let wait = withJitter(delay);
    if (err.kind === 'auth') {
      if (++authFailures > (opts.authRetries ?? AUTH_RETRIES))
        throw finalSshError(err, target.user, Date.now() - started);
      wait = Math.max(wait, AUTH_RETRY_MS);
    }
    if (Date.now() + wait >= until) throw finalSshError(err, target.user, Date.now() - started);
    opts.onRetry?.(attempt, err, wait);
    await sleep(wait, opts.signal);
    delay = Math.min(delay * 2, MAX_RETRY_MS);
  }
}

/** One attempt: resolves with a ready shell or rejects with a classified SshError. */
function connectOnce(
  target: SshTarget,
  opts: ConnectSshOptions,
  endpoint: string,
  timeoutMs: number,
): Promise<SshShell> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let hostKeyReason: string | null = null;
    let isSettled = false;
    const settle = (fn: () => void) => {
      if (isSettled) return;
      isSettled = true;
      opts.signal.removeEventListener('abort', onAbort);
      fn();
    };
    const fail = (err: unknown) =>
      settle(() => {
        client.destroy();
        reject(classifySshFailure(err, endpoint, target.user, hostKeyReason));
      });
    const onAbort = () =>
      settle(() => {
        client.destroy();
        reject(opts.signal.reason);
      });
    opts.signal.addEventListener('abort', onAbort, { once: true });
    const onClose = () => fail(new Error('the server closed the connection before login'));
    // Stays attached after a failure: ssh2 may emit more errors while it tears down.
    client.on('error', fail);
    client.once('close', onClose);
    client.once('ready', () => {
      if (isSettled) return void client.destroy();
      client.off('error', fail);
      client.off('close', onClose);
      settle(() => resolve(new SshShell(client, `${target.user}@${endpoint}`, endpoint)));
    });
    const config: ConnectConfig = {
      host: target.host,
      port: target.port,
      username: target.user,
      privateKey: target.privateKey,
      readyTimeout: timeoutMs,
      keepaliveInterval: opts.keepaliveIntervalMs ?? KEEPALIVE_MS,
      keepaliveCountMax: KEEPALIVE_COUNT,
      tryKeyboard: false,
      // Always set: without a verifier ssh2 accepts any key.
      hostVerifier: (key: Buffer) => {
        try {
          hostKeyReason = opts.hostKey(hostKeyInfo(key));
        } catch (err) {
          hostKeyReason = `the host key check failed: ${(err as Error).message}`;
        }
        return hostKeyReason === null;
      },
    };
    if (target.passphrase !== undefined) config.passphrase = target.passphrase;
    const preferred = (opts.hostKey.preferredKeyTypes?.() ?? []).flatMap(algorithmsForKeyType);
    if (preferred.length > 0) {
      // Remove, then put first: ssh2's `prepend` skips names already in its default list.
      const algos = preferred as ServerHostKeyAlgorithm[];
      config.algorithms = { serverHostKey: { remove: algos, prepend: algos, append: [] } };
    }
    try {
      client.connect(config);
    } catch (err) {
      fail(err);
    }
  });
}

/** A bad key file or passphrase fails every attempt the same way: say so at once. */
function checkKeyParses(target: SshTarget, endpoint: string): void {
  const parsed = ssh2.utils.parseKey(target.privateKey, target.passphrase);
  if (!(parsed instanceof Error)) return;
  const hint = 'check identity_file, and its passphrase if it has one';
  throw new SshError(
    'auth',
    endpoint,
    `Tender's private key for ${target.user}@${endpoint} cannot be used (${redactSecrets(parsed.message)}); ${hint}`,
    hint,
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
  readonly #live = new Set<{ drop(): void }>();
  readonly #listeners: TcpListeners;
  #closeReason: string | null = null;
  #lastError: string | null = null;
  #isGone = false;
  #hasRunCommand = false;

  constructor(client: Client, description: string, endpoint: string) {
    this.#client = client;
    this.#endpoint = endpoint;
    this.description = description;
    client.setNoDelay(true); // exec round trip 48 ms → 2.5 ms
    this.#listeners = new TcpListeners(client);
    client.on('error', (err: Error) => {
      this.#lastError ??= redactSecrets(err.message);
    });
    this.closed = new Promise((resolve) => {
      client.once('close', () => {
        this.#isGone = true;
        this.#limit.shut();
        for (const ch of this.#live) ch.drop();
        this.#live.clear();
        resolve(this.#closeReason ?? this.#lastError ?? 'the server closed the connection');
      });
    });
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
          (cb) => this.#client.exec(command, cb),
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
    this.#turnNagleOff();
    return openTcpChannel(this.#client, host, port, this.description, () => this.#isGone);
  }

  /** Listens on the node's 127.0.0.1:`port` (tcpip-forward, as `ssh -R`); sshd drops the
   *  listener with the connection. */
  listenRemote(port: number, onConnection: (stream: Duplex) => void): Promise<() => Promise<void>> {
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
    this.#live.add(ch);
    void done.then(() => this.#live.delete(ch));
  }

  async #reasonNow(): Promise<string> {
    return this.#isGone ? await this.closed : 'the connection is closing';
  }
}

function formatEndpoint(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function withJitter(ms: number): number {
  return Math.round(ms * (0.8 + Math.random() * 0.4)); // ±20%: nodes of a run do not align
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
