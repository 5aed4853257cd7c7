// Connecting to sshd: one TCP connection, key exchange with the host key checked, and login
// with a private key; retried with backoff until the caller's deadline. What is made of the
// ready connection (ssh-shell.ts) is handed in, so it is built inside ssh2's ready event and
// no event of the connection goes unheard.
import ssh2, { Client, type ConnectConfig, type ServerHostKeyAlgorithm } from 'ssh2';
import {
  algorithmsForKeyType,
  type DeferredHostKeyCheck,
  type HostKeyCheck,
  hostKeyInfo,
} from './host-key-info';
import { classifySshFailure, finalSshError, redactSecrets, SshError } from './ssh-errors';

export interface SshTarget {
  host: string;
  port: number;
  user: string;
  privateKey: string | Buffer;
  passphrase?: string;
}

export interface ConnectSshOptions {
  hostKey: HostKeyCheck | DeferredHostKeyCheck;
  signal: AbortSignal;
  /** How long to keep trying, from the call, before giving up with the last error's class. */
  deadlineMs: number;
  /** Told about each failed attempt that will be retried, before the wait. */
  onRetry?: (attempt: number, err: SshError, delayMs: number) => void;
  /** Rejected keys retried before giving up (default 2). A freshly rented container may
   *  install its authorized_keys well after sshd listens: for those, until the deadline. */
  authRetries?: number;
  keepaliveIntervalMs?: number;
  /** One attempt, whatever fails (an early dial: its user dials again, with retries). */
  once?: boolean;
}

/** Makes what the caller keeps of a ready connection; called inside ssh2's ready event. */
export type OnReady<T> = (client: Client, description: string, endpoint: string) => T;

// ssh2's keepalive is off by default, and then a dead link hangs for ever: a dead node is
// noticed after 3 unanswered probes, ~36–48 s.
const KEEPALIVE_MS = 12_000;
const KEEPALIVE_COUNT = 3;
const READY_TIMEOUT_MS = 20_000; // TCP + key exchange + auth to a far, busy node
const MIN_ATTEMPT_MS = 1_000; // a last attempt shorter than this cannot finish a handshake
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
// Cloud images may install authorized_keys a little after sshd starts listening, so a
// rejected key is retried a couple of times, slowly; then it is the key.
const AUTH_RETRIES = 2;
const AUTH_RETRY_MS = 2_000;

/** Connects and authenticates, retrying with backoff until `deadlineMs` has passed. A host
 *  key refusal is final at once; a rejected key after AUTH_RETRIES. Throws SshError (or the
 *  signal's reason when aborted). */
export async function dialSsh<T>(
  target: SshTarget,
  opts: ConnectSshOptions,
  onReady: OnReady<T>,
): Promise<T> {
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
      return await connectOnce(target, opts, endpoint, budget, onReady);
    } catch (e) {
      opts.signal.throwIfAborted();
      if (!(e instanceof SshError)) throw e;
      err = e;
    }
    if (err.kind === 'host_key' || opts.once) throw err;
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

/** One attempt: resolves with what `onReady` made of the ready connection or rejects with a
 *  classified SshError. */
function connectOnce<T>(
  target: SshTarget,
  opts: ConnectSshOptions,
  endpoint: string,
  timeoutMs: number,
  onReady: OnReady<T>,
): Promise<T> {
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
      settle(() => resolve(onReady(client, `${target.user}@${endpoint}`, endpoint)));
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
      // The key straight away: ssh2 (like OpenSSH) first asks for `none` to learn the
      // server's methods, a round trip of every login spent learning what this one ignores.
      authHandler: ['publickey'],
      // Always set: without a verifier ssh2 accepts any key. A deferred check's verdict is
      // handed to ssh2 when it comes (the handshake waits).
      hostVerifier: (key: Buffer, verify: (isTrusted: boolean) => void) => {
        const decide = (reason: string | null) => {
          hostKeyReason = reason;
          return reason === null;
        };
        const failed = (err: unknown) =>
          decide(`the host key check failed: ${(err as Error).message}`);
        let verdict: string | null | Promise<string | null>;
        try {
          verdict = opts.hostKey(hostKeyInfo(key));
        } catch (err) {
          return failed(err);
        }
        if (!(verdict instanceof Promise)) return decide(verdict);
        verdict.then(
          (reason) => verify(decide(reason)),
          (err: unknown) => verify(failed(err)),
        );
        return undefined;
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
