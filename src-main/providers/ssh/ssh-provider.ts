import { randomBytes } from 'node:crypto';
import {
  ProviderError,
  type CreateLeaseRequest,
  type CreateLeaseResult,
  type DestroyHandle,
  type LeaseFacts,
  type NodeEndpoint,
  type Provider,
} from '../provider';
import { execCapture } from '../../transport/exec-helpers';
import type { NodeShell } from '../../transport/node-shell';
import { findHost, readHosts, type HostEntry } from './hosts-file';
import { destroyScript, isGoneScript, listScript, parseList } from './remote-scripts';

export type HostConnector = (host: HostEntry, signal: AbortSignal) => Promise<NodeShell>;

/** Machines you already have (hosts.toml): lab servers, a workstation. A lease claims a host
 *  for a run; nothing bills. Destroy stops the lease's agent and its processes and removes the
 *  lease's folder on the host; it keeps the cached agent and runtime, and never powers
 *  anything off. Unlike a cloud API, this provider's "API" is SSH itself. */
export class SshProvider implements Provider {
  readonly kind = 'ssh';

  constructor(
    private readonly home: string,
    private readonly connect: HostConnector,
  ) {}

  async createLease(req: CreateLeaseRequest): Promise<CreateLeaseResult> {
    const name = req.shape.host;
    if (typeof name !== 'string')
      throw new ProviderError('no host given for this node', {
        fatal: true,
        hint: 'pass --hosts lab1,lab2 or set [pool] hosts',
      });
    const host = this.host(name);
    return { lease: facts(host, req.label), endpoint: endpointOf(host) };
  }

  async lookupEndpoint(lease: LeaseFacts): Promise<NodeEndpoint | null> {
    return endpointOf(this.host(lease.metadata.host ?? ''));
  }

  async destroyLease(handle: DestroyHandle, signal: AbortSignal): Promise<void> {
    const nonce = newNonce();
    const out = await this.run(handle.host ?? '', destroyScript(labelOf(handle), nonce), signal);
    if (!out.includes(`TENDER-GONE-${nonce}`))
      throw new ProviderError(`the lease folder on ${handle.host} could not be removed`);
  }

  async isGone(handle: DestroyHandle, signal: AbortSignal): Promise<boolean> {
    const nonce = newNonce();
    const out = await this.run(handle.host ?? '', isGoneScript(labelOf(handle), nonce), signal);
    if (out.includes(`TENDER-GONE-${nonce}`)) return true;
    if (out.includes(`TENDER-PRESENT-${nonce}`)) return false;
    throw new ProviderError(
      `${handle.host} did not answer whether lease ${labelOf(handle)} is gone`,
    );
  }

  /** Leases on every host; a host that cannot be reached is skipped unless all are. */
  async listLabeled(prefix: string, signal: AbortSignal): Promise<LeaseFacts[]> {
    if (!/^[a-z0-9-]+$/.test(prefix))
      throw new ProviderError(`bad label prefix "${prefix}"`, { fatal: true });
    const hosts = readHosts(this.home);
    const found: LeaseFacts[] = [];
    const failures: string[] = [];
    await Promise.all(
      hosts.map(async (h) => {
        try {
          const nonce = newNonce();
          const out = await this.run(h.name, listScript(prefix, nonce), signal);
          for (const label of parseList(out, nonce)) found.push(facts(h, label));
        } catch (err) {
          failures.push(`${h.name}: ${(err as Error).message}`);
        }
      }),
    );
    if (hosts.length > 0 && failures.length === hosts.length) {
      throw new ProviderError(`no ssh host answered: ${failures.join('; ')}`);
    }
    return found.sort((a, b) => a.label.localeCompare(b.label));
  }

  private host(name: string): HostEntry {
    try {
      return findHost(this.home, name);
    } catch (err) {
      throw new ProviderError((err as Error).message, { fatal: true });
    }
  }

  private async run(hostName: string, script: string, signal: AbortSignal): Promise<string> {
    const shell = await this.connect(this.host(hostName), signal);
    try {
      const r = await execCapture(shell, script, { signal });
      return r.stdout;
    } finally {
      await shell.close();
    }
  }
}

const newNonce = () => randomBytes(6).toString('hex');

function labelOf(handle: DestroyHandle): string {
  const label = handle.label ?? '';
  if (!/^[a-z0-9][a-z0-9-]*$/.test(label))
    throw new ProviderError(`bad ssh lease label "${label}"`, { fatal: true });
  return label;
}

function facts(host: HostEntry, label: string): LeaseFacts {
  const leaseId = `ssh:${host.name}/${label}`;
  return {
    provider: 'ssh',
    leaseId,
    contractId: label,
    label,
    destroyHandle: { provider: 'ssh', leaseId, host: host.name, label },
    pricePerHour: null,
    metadata: { host: host.name },
  };
}

export function endpointOf(host: HostEntry): NodeEndpoint {
  return {
    kind: 'ssh',
    host: host.host,
    port: host.port,
    user: host.user,
    authRef: host.identityFile ?? 'tender',
    hostKeyScope: `host:${host.name}`,
    knownHosts: true,
  };
}
