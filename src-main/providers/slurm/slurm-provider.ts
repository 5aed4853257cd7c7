// Slurm clusters as a provider (docs/slurm.md): a lease is one job allocation (one node),
// submitted over SSH to the cluster's login node with `sbatch`; its batch script holds the
// allocation for Tender's agent (batch-script.ts). The node is reached through the login
// node, every command through `srun --jobid --overlap` (transport/srun-shell.ts). Lookup is
// `squeue`: PENDING is shown with Slurm's reason and expected start; RUNNING is the
// endpoint. Destroy is `scancel`, many ids in one call; gone is "not pending or running".
// Nothing bills by the hour unless the cluster declares a notional $/GPU-hour.
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
import type { NodeShell } from '../../transport/node-shell';
import type { NodeShape } from '../pool-shapes';
import { batchScript } from './batch-script';
import { clusterKeyScope, findCluster, readClusters, type ClusterEntry } from './clusters-file';
import {
  endedBecause,
  parseSbatch,
  parseScontrol,
  parseSqueue,
  RUNNING,
  sbatchCommand,
  sbatchRefusal,
  scancelCommand,
  scontrolCommand,
  squeueCommand,
  WAITING,
  type QueueRow,
} from './slurm-cli';

export const SLURM_KIND = 'slurm';

export type ClusterConnector = (cluster: ClusterEntry, signal: AbortSignal) => Promise<NodeShell>;

/** Cancels asked for within this are one `scancel` (Tear down all of 20 allocations: one
 *  round trip, not 20). */
const CANCEL_GATHER_MS = 30;

/** The pool fields of a marketplace that mean nothing to a cluster. */
const NOT_FOR_SLURM = [
  'gpu',
  'min_vram_gb',
  'max_price',
  'image',
  'disk_gb',
  'min_reliability',
  'min_down_mbps',
  'min_up_mbps',
  'verified',
  'interruptible',
  'bid',
] as const;

export class SlurmProvider implements Provider {
  readonly kind = SLURM_KIND;
  /** A pending job may wait its turn for hours: the lookup keeps going. */
  readonly polling = {
    endpointPollMs: 2_000,
    destroyPollMs: 1_000,
    endpointDeadlineMs: 7 * 24 * 3_600_000,
  };
  private readonly pendingSeen = new Map<string, string>();
  private readonly cancels = new Map<string, { ids: Set<string>; done: Promise<void> }>();

  constructor(
    private readonly home: string,
    private readonly connect: ClusterConnector,
  ) {}

  isConfigured(): boolean {
    return readClusters(this.home).length > 0;
  }

  /** One allocation per node (`count`), on the named cluster. */
  shapeNodes(pool: PoolSpec): NodeShape[] {
    const given = NOT_FOR_SLURM.filter((k) => pool[k] !== undefined);
    if (given.length > 0)
      throw new TenderError(
        'bad_input',
        `${given.join(', ')} ${given.length > 1 ? 'are' : 'is'} for a marketplace, not a Slurm cluster`,
        'on a cluster ask for GPUs with gpu_count (--gpus); leave the rest out',
      );
    if (pool.hosts.length > 0 || pool.offers.length > 0)
      throw new TenderError('bad_input', 'hosts and offers are not for a Slurm cluster');
    if (!pool.cluster)
      throw new TenderError(
        'bad_input',
        'the slurm provider needs a cluster',
        'pass --cluster <name> or set cluster in [pool]; `tender clusters add` registers one',
      );
    const c = findCluster(this.home, pool.cluster); // an unknown name is bad input, named
    const shape: NodeShape = {
      cluster: c.name,
      gpus: pool.gpu_count ?? 0,
      partition: pool.partition ?? c.partition,
      account: pool.account ?? c.account,
      qos: pool.qos ?? c.qos,
    };
    return Array.from({ length: pool.count }, () => ({ ...shape }));
  }

  async createLease(req: CreateLeaseRequest, signal: AbortSignal): Promise<CreateLeaseResult> {
    const c = this.cluster(String(req.shape.cluster ?? ''));
    const gpus = Number(req.shape.gpus ?? 0);
    return this.withLogin(c, signal, async (shell) => {
      // Idempotent per label: a job already carrying it (a create resumed after a crash) is
      // the lease.
      const existing = parseSqueue(
        (await this.run(shell, squeueCommand({ me: true }), signal)).stdout,
      ).find((r) => r.name === req.label && (WAITING.has(r.state) || RUNNING.has(r.state)));
      if (existing) return { lease: facts(c, req.label, existing.jobId, gpus), endpoint: null };
      const r = await execCapture(
        shell,
        sbatchCommand({
          label: req.label,
          gpus,
          partition: str(req.shape.partition),
          account: str(req.shape.account),
          qos: str(req.shape.qos),
          timeLimitMin: req.maxDurationMs !== undefined ? req.maxDurationMs / 60_000 : null,
        }),
        { stdin: batchScript(req.label), signal },
      );
      const id = r.code === 0 ? parseSbatch(r.stdout) : null;
      if (!id) {
        const why = sbatchRefusal(r.stderr, r.code);
        throw new ProviderError(`${c.name}: ${why.text}`, { fatal: true, hint: why.hint });
      }
      return { lease: facts(c, req.label, id, gpus), endpoint: null };
    });
  }

  async lookupEndpoint(lease: LeaseFacts, signal: AbortSignal): Promise<NodeEndpoint | null> {
    const c = this.cluster(lease.metadata.cluster ?? '');
    const id = lease.contractId;
    const row = await this.withLogin(c, signal, (shell) => this.queueRow(shell, id, signal));
    if (row && RUNNING.has(row.state)) {
      this.pendingSeen.delete(lease.leaseId);
      return { ...loginEndpoint(c), slurmJobId: id };
    }
    if (row && WAITING.has(row.state)) {
      // Said once per reason (the lookup repeats every few seconds while it waits).
      const said = `Slurm job ${id} is ${row.state} (${row.reason})${row.startTime && row.startTime !== 'N/A' ? `, expected to start ${row.startTime}` : ''}`;
      if (this.pendingSeen.get(lease.leaseId) === said) return null;
      this.pendingSeen.set(lease.leaseId, said);
      throw new ProviderError(said);
    }
    const ended = await this.withLogin(c, signal, (shell) => this.endedWords(shell, id, signal));
    throw new ProviderError(`Slurm job ${id} ended before its node joined: ${ended.words}`, {
      fatal: true,
    });
  }

  async destroyLease(handle: DestroyHandle, signal: AbortSignal): Promise<void> {
    const c = this.cluster(handle.cluster ?? '');
    await this.cancel(c, handle.jobId ?? '', signal);
  }

  async isGone(handle: DestroyHandle, signal: AbortSignal): Promise<boolean> {
    const c = this.cluster(handle.cluster ?? '');
    const row = await this.withLogin(c, signal, (shell) =>
      this.queueRow(shell, handle.jobId ?? '', signal),
    );
    return !row || !(WAITING.has(row.state) || RUNNING.has(row.state));
  }

  /** The user's jobs whose name carries the prefix, on every cluster: a crash mid-submit
   *  leaves nothing unseen. */
  async listLabeled(prefix: string, signal: AbortSignal): Promise<LeaseFacts[]> {
    const out: LeaseFacts[] = [];
    for (const c of readClusters(this.home)) {
      const rows = await this.withLogin(c, signal, async (shell) =>
        parseSqueue((await this.run(shell, squeueCommand({ me: true }), signal)).stdout),
      );
      for (const r of rows)
        if (r.name.startsWith(prefix) && (WAITING.has(r.state) || RUNNING.has(r.state)))
          out.push({
            ...facts(c, r.name, r.jobId, 0),
            condition: { state: RUNNING.has(r.state) ? 'running' : 'loading' },
          });
    }
    return out;
  }

  /** What ended a job, in Slurm's words (for a lease found gone). */
  async endedReason(
    lease: LeaseFacts,
    signal: AbortSignal,
  ): Promise<{ words: string; cause: string }> {
    const c = this.cluster(lease.metadata.cluster ?? '');
    return this.withLogin(c, signal, (shell) => this.endedWords(shell, lease.contractId, signal));
  }

  private async queueRow(
    shell: NodeShell,
    id: string,
    signal: AbortSignal,
  ): Promise<QueueRow | null> {
    // squeue refuses an id it no longer knows ("Invalid job id specified"): gone.
    const r = await execCapture(shell, squeueCommand({ jobIds: [id] }), { signal });
    if (r.code !== 0 && /Invalid job id/i.test(r.stderr)) return null;
    if (r.code !== 0) throw new ProviderError(`squeue: ${r.stderr.trim() || `exit ${r.code}`}`);
    return parseSqueue(r.stdout).find((x) => x.jobId === id) ?? null;
  }

  private async endedWords(shell: NodeShell, id: string, signal: AbortSignal) {
    const r = await execCapture(shell, scontrolCommand(id), { signal });
    const s = r.code === 0 ? parseScontrol(r.stdout) : null;
    return s
      ? endedBecause(s.state, s.reason)
      : { words: 'Slurm no longer knows it', cause: 'ended' as const };
  }

  /** One `scancel` for every cancel asked within CANCEL_GATHER_MS on a cluster. */
  private cancel(c: ClusterEntry, id: string, signal: AbortSignal): Promise<void> {
    const pending = this.cancels.get(c.name);
    if (pending) {
      pending.ids.add(id);
      return pending.done;
    }
    const ids = new Set([id]);
    const done = new Promise<void>((resolve, reject) => {
      setTimeout(() => {
        this.cancels.delete(c.name);
        this.withLogin(c, signal, (shell) =>
          this.run(shell, scancelCommand([...ids]), signal),
        ).then(() => resolve(), reject);
      }, CANCEL_GATHER_MS);
    });
    this.cancels.set(c.name, { ids, done });
    return done;
  }

  private async run(shell: NodeShell, command: string, signal: AbortSignal) {
    const r = await execCapture(shell, command, { signal });
    if (r.code === 127)
      throw new ProviderError(`${command.split(' ')[0]} is not on the login node’s PATH`, {
        fatal: true,
        hint: 'is this a Slurm login node?',
      });
    if (r.code !== 0)
      throw new ProviderError(`${command.split(' ')[0]}: ${r.stderr.trim() || `exit ${r.code}`}`);
    return r;
  }

  private async withLogin<T>(
    c: ClusterEntry,
    signal: AbortSignal,
    work: (shell: NodeShell) => Promise<T>,
  ): Promise<T> {
    const shell = await this.connect(c, signal).catch((err: Error) => {
      throw new ProviderError(
        `cannot reach ${c.name}'s login node ${c.user}@${c.host}:${c.port}: ${err.message}`,
        {
          hint: c.identityFile
            ? `check ${c.identityFile} is a key the login node accepts`
            : `add ${this.home}/keys/id_ed25519.pub to ~/.ssh/authorized_keys on the login node`,
        },
      );
    });
    try {
      return await work(shell);
    } finally {
      await shell.close();
    }
  }

  private cluster(name: string): ClusterEntry {
    try {
      return findCluster(this.home, name);
    } catch (err) {
      throw new ProviderError((err as Error).message, { fatal: true });
    }
  }
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function facts(c: ClusterEntry, label: string, jobId: string, gpus: number): LeaseFacts {
  const leaseId = `slurm:${c.name}/${jobId}`;
  return {
    provider: SLURM_KIND,
    leaseId,
    contractId: jobId,
    label,
    destroyHandle: { provider: SLURM_KIND, leaseId, cluster: c.name, jobId },
    // A notional price, when the cluster declares one (the cost report only).
    pricePerHour: c.gpuHourUsd !== null ? c.gpuHourUsd * Math.max(1, gpus) : null,
    metadata: { cluster: c.name, jobId },
  };
}

/** The login node, as an endpoint: your own machine's rules (known_hosts too, the key pinned
 *  to the cluster). */
export function loginEndpoint(c: ClusterEntry): Extract<NodeEndpoint, { kind: 'ssh' }> {
  return {
    kind: 'ssh',
    host: c.host,
    port: c.port,
    user: c.user,
    authRef: c.identityFile ?? 'tender',
    hostKeyScope: clusterKeyScope(c.name),
    knownHosts: true,
  };
}
