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
import type { PoolSpec } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { execCapture } from '../../transport/exec-helpers';
import { refuseMarketFields, type NodeShape } from '../pool-shapes';
import type { NodeShell } from '../../transport/node-shell';
import { findHost, readHosts, type HostEntry } from './hosts-file';
import { destroyScript, isGoneScript, listScript, parseList } from './remote-scripts';
import { ArmedDestroys } from './armed-destroy';

export type HostConnector = (host: HostEntry, signal: AbortSignal) => Promise<NodeShell>;

/** Machines you already have (hosts.toml): lab servers, a workstation. A lease claims a host
 *  for a run; nothing bills. Destroy stops the lease's agent and its processes and removes the
 *  lease's folder on the host; it keeps the cached agent and runtime, and never powers
 *  anything off. Unlike a cloud API, this provider's "API" is SSH itself. */
/** The ssh provider's kind: its leases are claims on hosts in hosts.toml. */
export const SSH_KIND = 'ssh';

export class SshProvider implements Provider {
  readonly kind = SSH_KIND;
  private readonly armed = new ArmedDestroys();

  constructor(
    private readonly home: string,
    private readonly connect: HostConnector,
  ) {}

  /** One node per host named; every name must be in hosts.toml. */
  shapeNodes(pool: PoolSpec): NodeShape[] {
    refuseMarketFields(this.kind, pool);
    if (pool.hosts.length === 0) {
      throw new TenderError(
        'bad_input',
        'the ssh provider needs hosts',
        'pass --hosts lab1,lab2 or set hosts in [pool]; `tender hosts add` registers one',
      );
    }
    if (pool.count > 1 && pool.count !== pool.hosts.length) {
      throw new TenderError(
        'bad_input',
        `count ${pool.count} does not match the ${pool.hosts.length} hosts given`,
        'with the ssh provider each host is one node; leave count out',
      );
    }
    if (new Set(pool.hosts).size !== pool.hosts.length)
      throw new TenderError('bad_input', 'a host is named twice in hosts');
    for (const name of pool.hosts) findHost(this.home, name); // unknown names are bad input, named
    return pool.hosts.map((host) => ({ host }));
  }

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

  /** The script looks for the folder after removing it: its "gone" is the confirmation
   *  (one connection where a destroy and an `isGone` took two). Sent to the command armed
   *  for it (`armDestroy`) where there is one: two round trips fewer. */
  async destroyLease(handle: DestroyHandle, signal: AbortSignal): Promise<'gone'> {
    const label = labelOf(handle);
    const armed = this.armed.take(label);
    if (armed && (await armed.fire(signal))?.includes(`TENDER-GONE-${armed.nonce}`)) return 'gone';
    const nonce = newNonce();
    const out = await this.run(handle.host ?? '', destroyScript(label, nonce), signal);
    if (!out.includes(`TENDER-GONE-${nonce}`))
      throw new ProviderError(`the lease folder on ${handle.host} could not be removed`);
    return 'gone';
  }

  /** Opens the lease's destroy script on its host, to run when `destroyLease` says go. */
  armDestroy(handle: DestroyHandle): void {
    let label: string;
    let host: HostEntry;
    try {
      label = labelOf(handle);
      host = this.host(handle.host ?? '');
    } catch {
      return; // the destroy itself says what is wrong
    }
    const nonce = newNonce();
    const connect = (signal: AbortSignal) => this.connect(host, signal);
    this.armed.arm(label, nonce, destroyScript(label, nonce), connect);
  }

  /** Armed destroys end having done nothing (this process is going). */
  async close(): Promise<void> {
    this.armed.disarmAll();
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

export function endpointOf(host: HostEntry): Extract<NodeEndpoint, { kind: 'ssh' }> {
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
