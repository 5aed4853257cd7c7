export type SshErrorKind = 'refused' | 'timeout' | 'handshake' | 'auth' | 'host_key' | 'closed';

/** Why an SSH connection failed, in a class a caller can branch on. The message names the
 *  endpoint and the fix; `hint` is the fix alone. Never carries key material. */
export class SshError extends Error {
  constructor(
    readonly kind: SshErrorKind,
    readonly endpoint: string,
    message: string,
    public hint: string,
    /** What the SSH library said, for the log (already free of key material). */
    readonly detail = '',
  ) {
    super(message);
    this.name = 'SshError';
  }
}

/** What ssh2 puts on its errors: `level` says which layer failed. */
interface Ssh2ErrorShape {
  message?: unknown;
  level?: unknown;
  code?: unknown;
}

const HINTS: Record<SshErrorKind, string> = {
  refused: "sshd may not be up yet — check the node's boot log",
  timeout: 'the node may be unreachable — check its address, port and firewall',
  handshake:
    'the port may not be an SSH server, or it offers no algorithm Tender supports — try `ssh -v` against it',
  auth: "add Tender's public key (keys/id_ed25519.pub in Tender's data folder) to that user's ~/.ssh/authorized_keys, or check identity_file",
  host_key:
    "confirm the node's host key out of band (its console or boot log) before trusting it again",
  closed: 'the node may have rebooted or dropped off the network; connect again',
};

const UNREACHABLE = new Set(['ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN']);

/** Classifies one failed attempt. `hostKeyReason` is set when our host verifier refused the
 *  key: ssh2 reports that only as a generic handshake error. */
export function classifySshFailure(
  err: unknown,
  endpoint: string,
  user: string,
  hostKeyReason: string | null,
): SshError {
  if (hostKeyReason !== null)
    return new SshError('host_key', endpoint, hostKeyReason, HINTS.host_key);
  const e = (typeof err === 'object' && err !== null ? err : {}) as Ssh2ErrorShape;
  const detail = redactSecrets(typeof e.message === 'string' ? e.message : String(err));
  const code = typeof e.code === 'string' ? e.code : '';
  switch (e.level) {
    case 'client-socket':
      if (code === 'ECONNREFUSED') return attemptError('refused', endpoint, user, 'refused');
      if (UNREACHABLE.has(code)) return attemptError('timeout', endpoint, user, detail);
      return attemptError('handshake', endpoint, user, detail);
    case 'client-dns':
      return attemptError('refused', endpoint, user, `the name does not resolve (${detail})`);
    case 'client-timeout':
      return attemptError('timeout', endpoint, user, detail);
    case 'client-authentication':
      return attemptError('auth', endpoint, user, detail);
    default:
      return attemptError('handshake', endpoint, user, detail);
  }
}

function attemptError(
  kind: SshErrorKind,
  endpoint: string,
  user: string,
  detail: string,
): SshError {
  const what =
    kind === 'auth'
      ? `the node rejected Tender's key for user ${user} at ${endpoint} (${detail})`
      : `SSH to ${endpoint}: ${detail}`;
  return new SshError(kind, endpoint, what, HINTS[kind], detail);
}

/** The error `connectSsh` throws when it stops: how long it tried, and what to do. */
export function finalSshError(last: SshError, user: string, elapsedMs: number): SshError {
  const { kind, endpoint } = last;
  const dur = formatDuration(elapsedMs);
  const hint = HINTS[kind];
  switch (kind) {
    case 'refused': {
      const what = last.detail === 'refused' ? 'refused' : `failed (${last.detail})`;
      return new SshError(
        kind,
        endpoint,
        `SSH to ${endpoint} ${what} for ${dur}; ${hint}`,
        hint,
        last.detail,
      );
    }
    case 'timeout':
      return new SshError(
        kind,
        endpoint,
        `SSH to ${endpoint}: no answer for ${dur}; ${hint}`,
        hint,
      );
    case 'auth':
      return new SshError(
        kind,
        endpoint,
        `the node rejected Tender's key for user ${user} at ${endpoint} (tried for ${dur}): ${hint}`,
        hint,
        last.detail,
      );
    case 'handshake':
      return new SshError(
        kind,
        endpoint,
        `SSH handshake with ${endpoint} failed: ${last.detail} (tried for ${dur}); ${hint}`,
        hint,
        last.detail,
      );
    default:
      return last;
  }
}

export function closedError(endpoint: string, reason: string): SshError {
  return new SshError(
    'closed',
    endpoint,
    `the SSH connection to ${endpoint} is closed (${reason}); ${HINTS.closed}`,
    HINTS.closed,
  );
}

/** A private key must never reach a message: drop anything that looks like key material
 *  (long base64 runs, PEM armour) from text that came from a library. */
export function redactSecrets(text: string): string {
  return text
    .replace(/-----BEGIN [^-]*-----[\s\S]*?(-----END [^-]*-----|$)/g, '[redacted key]')
    .replace(/[A-Za-z0-9+/=]{40,}/g, '[redacted]');
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 90) return `${s} s`;
  return `${Math.round(s / 60)} min`;
}
