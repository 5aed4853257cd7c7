import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { socketPath } from '../../../src-agent/wire/paths';
import type {
  CreateLeaseRequest,
  CreateLeaseResult,
  DestroyHandle,
  LeaseFacts,
  NodeEndpoint,
  Provider,
} from '../provider';
import { ProviderError } from '../provider';
import type { PoolSpec } from '../../contract';
import { countedShapes, refuseMarketFields, type NodeShape } from '../pool-shapes';
import { killProcessGroups } from './process-groups';
import { mkdirPrivate, writePrivateFile } from '../../base/private-files';

interface LeaseFile {
  label: string;
  runId: string;
  logicalId: string;
  createdAt: number;
}

const SAFE_LABEL = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;

function labelOf(handle: DestroyHandle): string {
  return handle.contractId ?? handle.leaseId.replace(/^local:/, '');
}

/** The embedded default provider: a lease is a folder under `<home>/local/leases/`, and the
 *  agent runs as a local process whose process groups are listed in `<folder>/pids/`.
 *  Nothing bills. Destroy kills everything the node started and removes the folder. */
export class LocalProvider implements Provider {
  readonly kind = 'local';
  /** A folder on this machine answers in milliseconds. */
  readonly polling = { endpointPollMs: 200, destroyPollMs: 100 };
  private readonly leasesDir: string;

  constructor(
    home: string,
    private readonly now: () => number = Date.now,
  ) {
    this.leasesDir = join(home, 'local', 'leases');
  }

  shapeNodes(pool: PoolSpec): NodeShape[] {
    refuseMarketFields(this.kind, pool);
    return countedShapes(this.kind, pool);
  }

  async createLease(req: CreateLeaseRequest): Promise<CreateLeaseResult> {
    const dir = this.leaseDir(req.label);
    mkdirPrivate(dir);
    const file = join(dir, 'lease.json');
    if (!existsSync(file)) {
      const lease: LeaseFile = {
        label: req.label,
        runId: req.runId,
        logicalId: req.logicalId,
        createdAt: this.now(),
      };
      writePrivateFile(`${file}.tmp`, JSON.stringify(lease));
      renameSync(`${file}.tmp`, file);
    }
    return { lease: this.facts(req.label), endpoint: { kind: 'local', dir } };
  }

  async lookupEndpoint(lease: LeaseFacts): Promise<NodeEndpoint | null> {
    const dir = this.leaseDir(lease.contractId);
    if (!existsSync(dir))
      throw new ProviderError(`the lease folder ${dir} is gone`, { fatal: true });
    return { kind: 'local', dir };
  }

  async destroyLease(handle: DestroyHandle): Promise<void> {
    const dir = this.leaseDir(labelOf(handle));
    if (!existsSync(dir)) return; // already gone: success
    await killProcessGroups(join(dir, 'pids'));
    rmSync(socketPath(dir), { force: true });
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }

  async isGone(handle: DestroyHandle): Promise<boolean> {
    return !existsSync(this.leaseDir(labelOf(handle)));
  }

  async listLabeled(prefix: string): Promise<LeaseFacts[]> {
    if (!existsSync(this.leasesDir)) return [];
    return readdirSync(this.leasesDir)
      .filter((name) => name.startsWith(prefix))
      .sort()
      .map((name) => this.facts(name));
  }

  /** The folder of a lease. Labels are checked so no handle can name a path outside. */
  private leaseDir(label: string): string {
    if (!SAFE_LABEL.test(label))
      throw new ProviderError(`bad local lease label "${label}"`, { fatal: true });
    return join(this.leasesDir, label);
  }

  private facts(label: string): LeaseFacts {
    let meta: Partial<LeaseFile> = {};
    try {
      meta = JSON.parse(
        readFileSync(join(this.leasesDir, label, 'lease.json'), 'utf8'),
      ) as LeaseFile;
    } catch {
      // a folder whose lease.json was never written (crash mid-create) is still a lease
    }
    return {
      provider: 'local',
      leaseId: `local:${label}`,
      contractId: label,
      label,
      destroyHandle: { provider: 'local', leaseId: `local:${label}`, contractId: label },
      pricePerHour: null,
      metadata: meta.createdAt ? { createdAt: String(meta.createdAt) } : {},
    };
  }
}
