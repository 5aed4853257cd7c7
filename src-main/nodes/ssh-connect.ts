import { existsSync, readFileSync } from 'node:fs';
import type { Ledger } from '../ledger/ledger';
import { allocationOf } from '../providers/allocation';
import { expandHome } from '../providers/ssh/hosts-file';
import { ProviderError, type NodeEndpoint } from '../providers/provider';
import { hostKeyCheck, type HostKeyPins } from '../transport/host-key-check';
import { ensureTenderKey } from '../transport/keys';
import { readKnownHosts } from '../transport/known-hosts';
import { LocalShell } from '../transport/local-shell';
import type { NodeShell } from '../transport/node-shell';
import type { ShellPool } from '../transport/shell-pool';
import { connectSsh, type SshShell } from '../transport/ssh-shell';
import { TenderError } from '../base/tender-error';

export type SshEndpoint = Extract<NodeEndpoint, { kind: 'ssh' }>;

export interface SshConnectContext {
  home: string;
  ledger: Ledger;
  now: () => number;
  /** Connections kept between their users (shell-pool.ts); none: each user dials. */
  shellPool?: ShellPool;
}

/** How a connection is had: `onRetry` hears each failed try before the deadline; `spare`
 *  and `light` are ShellPool.connector's (a pool only). */
export interface ConnectOptions {
  onRetry?: (line: string) => void;
  spare?: boolean;
  light?: boolean;
}

/** What makes two connections interchangeable: the same account on the same address,
 *  reached with the same key and checked against the same pinned host key. */
export function poolKey(ep: SshEndpoint): string {
  return JSON.stringify([ep.user, ep.host, ep.port, ep.authRef, ep.hostKeyScope, !!ep.knownHosts]);
}

/** sshConnector through the context's pool, where it has one. */
export function pooledSshConnector(
  ep: SshEndpoint,
  ctx: SshConnectContext,
  deadlineMs: number,
  opts: ConnectOptions = {},
): (signal: AbortSignal) => Promise<NodeShell> {
  const dial = sshConnector(ep, ctx, deadlineMs, opts.onRetry);
  if (!ctx.shellPool) return dial;
  return ctx.shellPool.connector(poolKey(ep), dial, { spare: opts.spare, light: opts.light });
}

/** How to open an SSH shell to an endpoint: the right key, the host key pinned in the ledger
 *  (and ~/.ssh/known_hosts for your own machines), retries until `deadlineMs`. */
export function sshConnector(
  ep: SshEndpoint,
  ctx: SshConnectContext,
  deadlineMs: number,
  onRetry?: (line: string) => void,
): (signal: AbortSignal) => Promise<SshShell> {
  return async (signal) => {
    const privateKey = privateKeyFor(ep, ctx.home);
    const hostKey = hostKeyCheck({
      scope: ep.hostKeyScope,
      endpoint: `${ep.host}:${ep.port}`,
      pins: pinsOf(ctx),
      knownHosts: ep.knownHosts ? readKnownHosts() : undefined,
    });
    return connectSsh(
      { host: ep.host, port: ep.port, user: ep.user, privateKey },
      {
        hostKey,
        signal,
        deadlineMs,
        // Your own machines: a rejected key is the key. A rented container may install its
        // authorized_keys a while after sshd listens: keep trying until the deadline.
        authRetries: ep.hostKeyScope.startsWith('lease:') ? Number.POSITIVE_INFINITY : undefined,
        onRetry: (attempt, err, delayMs) =>
          onRetry?.(
            `ssh: ${err.message}; retrying in ${(delayMs / 1000).toFixed(1)} s (attempt ${attempt})`,
          ),
      },
    );
  };
}

/** The private key an endpoint logs in with: Tender's own, or its identity file. */
export function privateKeyFor(ep: SshEndpoint, home: string): string {
  return ep.authRef === 'tender' ? ensureTenderKey(home).privateKey : readIdentity(ep.authRef);
}

/** The ledger's host key pins. A read-only process (logs, forward next to a running app)
 *  cannot pin, so it refuses a key nobody pinned yet; the writer pins on its first contact. */
export function pinsOf(ctx: Pick<SshConnectContext, 'ledger' | 'now'>): HostKeyPins {
  return {
    get: (scope) => ctx.ledger.getHostKey(scope),
    ...(ctx.ledger.isReadonly
      ? {}
      : { pin: (p) => void ctx.ledger.pinHostKey({ ...p, pinnedAt: ctx.now() }) }),
  };
}

function readIdentity(path: string): string {
  const file = expandHome(path);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new TenderError(
      'bad_input',
      `cannot read the identity file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      'Fix identity_file in hosts.toml, or remove it to use Tender’s own key.',
    );
  }
}

/** Opens a shell to a node's endpoint, retrying the connection until `deadlineMs`. A node
 *  inside an allocation is entered through its gateway's shell. */
export function connectorFor(
  ctx: SshConnectContext,
  endpoint: NodeEndpoint,
  deadlineMs: number,
  opts: ConnectOptions = {},
): (signal: AbortSignal) => Promise<NodeShell> {
  const { onRetry } = opts;
  if (endpoint.kind === 'local') return async () => localShellTo(endpoint.dir);
  const inside = allocationOf(endpoint);
  if (inside === null) return pooledSshConnector(endpoint, ctx, deadlineMs, opts);
  const gateway = sshConnector(inside.gateway, ctx, deadlineMs, onRetry);
  return async (signal) => inside.enter(await gateway(signal));
}

/** A shell in a local node's folder; the folder gone means the lease is gone (destroyed),
 *  and the connection fails saying so. */
function localShellTo(dir: string): LocalShell {
  if (!existsSync(dir))
    throw new ProviderError(`the local node's folder ${dir} is gone: its lease was destroyed`, {
      fatal: true,
    });
  return new LocalShell(dir);
}
