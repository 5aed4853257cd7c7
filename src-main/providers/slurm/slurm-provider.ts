// Slurm clusters as a provider (docs/slurm.md): a lease is one job allocation (one node),
// submitted over SSH to the cluster's login node with `sbatch`; its batch script holds the
// allocation for Tender's agent (batch-script.ts). The node is reached through the login
// node, every command through `srun --jobid --overlap` (slurm-endpoint.ts,
// transport/srun-shell.ts). Lookup is `squeue`: PENDING is shown with Slurm's reason and
// expected start; RUNNING is the endpoint. Destroy is `scancel`, many ids in one call
// (gathered-cancels.ts); gone is "not pending or running". Nothing bills by the hour unless
// the cluster declares a notional $/GPU-hour.
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
import { findCluster, readClusters, type ClusterEntry } from './clusters-file';
import { GatheredCancels } from './gathered-cancels';
import { leaseFacts, SLURM_KIND } from './lease-facts';
import { LoginConnections, type ClusterConnector } from './login-connections';
import { submitJob } from './sbatch';
import { cancelJobs } from './scancel';
import { showJob } from './scontrol';
import { slurmShapes } from './shape';
import { allocationEndpoint, nodeAddress } from './slurm-endpoint';
import { listJobs, type SqueueRow } from './squeue';
import { jobStatus, missingJobStatus, type SlurmJobStatus } from './slurm-status';

export class SlurmProvider implements Provider {
  readonly kind = SLURM_KIND;
  /** A pending job may wait its turn for hours: the lookup keeps going. */
  readonly polling = {
    endpointPollMs: 500,
    destroyPollMs: 1_000,
    endpointDeadlineMs: 7 * 24 * 3_600_000,
  };
  private readonly pendingSeen = new Map<string, string>();
  private readonly logins: LoginConnections;
  private readonly cancels = new GatheredCancels((c, ids, signal) =>
    this.withLogin(c, signal, (shell) => cancelJobs(shell, ids, signal)),
  );

  constructor(
    private readonly home: string,
    connect: ClusterConnector,
  ) {
    this.logins = new LoginConnections(home, connect);
  }

  close(): Promise<void> {
    return this.logins.close();
  }

  isConfigured(): boolean {
    return readClusters(this.home).length > 0;
  }

  /** One allocation per node (`count`), on the named cluster. */
  shapeNodes(pool: PoolSpec): NodeShape[] {
    return slurmShapes(this.home, pool);
  }

  /** Before the run is written: the login node answers with the key, has sbatch, and has
   *  the partition asked for. Each refusal is bad input naming the fix; nothing is
   *  submitted. */
  async checkPool(pool: PoolSpec, signal: AbortSignal): Promise<void> {
    if (!pool.cluster) return; // shapeNodes names it
    const c = findCluster(this.home, pool.cluster);
    const partition = pool.partition ?? c.partition;
    const out = await this.withLogin(c, signal, (shell) =>
      execCapture(
        shell,
        'command -v sbatch >/dev/null 2>&1 || echo TENDER-NO-SBATCH; sinfo -h -o %P 2>/dev/null',
        { signal },
      ),
    ).catch((err: Error & { opts?: { hint?: string } }) => {
      throw new TenderError('bad_input', err.message, err.opts?.hint);
    });
    if (out.stdout.includes('TENDER-NO-SBATCH'))
      throw new TenderError(
        'bad_input',
        `sbatch is not on the PATH of ${c.user}@${c.host}: is it the cluster's login node?`,
        'check the cluster (`tender clusters list`), or add Slurm’s bin folder to PATH in ~/.bashrc there',
      );
    const partitions = out.stdout
      .split('\n')
      .map((l) => l.trim().replace(/\*$/, ''))
      .filter(Boolean);
    if (partition && partitions.length > 0 && !partitions.includes(partition))
      throw new TenderError(
        'bad_input',
        `cluster ${c.name} has no partition "${partition}"`,
        `its partitions: ${partitions.join(', ')} (set [pool] partition, or --partition on \`tender clusters add\`)`,
      );
  }

  async createLease(req: CreateLeaseRequest, signal: AbortSignal): Promise<CreateLeaseResult> {
    const c = this.cluster(String(req.shape.cluster ?? ''));
    const gpus = Number(req.shape.gpus ?? 0);
    return this.withLogin(c, signal, async (shell) => {
      // Idempotent per label: a job already carrying it (a create resumed after a crash) is
      // the lease.
      const existing = (await listJobs(shell, { user: true, names: [req.label] }, signal)).find(
        (r) => jobStatus(r.state, r.reason).kind !== 'gone',
      );
      if (existing)
        return { lease: leaseFacts(c, req.label, existing.jobId, gpus), endpoint: null };
      await execCapture(shell, 'mkdir -p "$HOME"/.tender', { signal });
      const partition = str(req.shape.partition);
      const account = str(req.shape.account);
      const qos = str(req.shape.qos);
      const job = await submitJob(
        shell,
        {
          jobName: req.label,
          nodes: 1,
          ...(gpus > 0 ? { gpus } : {}),
          ...(req.maxDurationMs !== undefined
            ? { timeLimitMin: Math.max(1, Math.ceil(req.maxDurationMs / 60_000)) }
            : {}),
          ...(partition ? { partition } : {}),
          ...(account ? { account } : {}),
          ...(qos ? { qos } : {}),
          script: batchScript(req.label),
          output: '.tender/slurm-%j.out',
          // A node failure ends the job (NODE_FAIL) rather than rerunning it from the start
          // behind Tender's back: the run's own [recovery] rules decide.
          requeue: false,
        },
        signal,
      );
      return { lease: leaseFacts(c, req.label, job.jobId, gpus), endpoint: null };
    });
  }

  async lookupEndpoint(lease: LeaseFacts, signal: AbortSignal): Promise<NodeEndpoint | null> {
    const c = this.cluster(lease.metadata.cluster ?? '');
    const id = lease.contractId;
    const { st, row } = await this.withLogin(c, signal, (shell) => this.rowOf(shell, id, signal));
    if (st.kind === 'running') {
      this.pendingSeen.delete(lease.leaseId);
      // Where the other nodes of a distributed run reach this one: its compute node.
      const node = row?.nodes.split(',')[0] ?? '';
      const addr = node
        ? await this.withLogin(c, signal, (shell) => nodeAddress(shell, node, signal))
        : null;
      return allocationEndpoint(c, id, addr);
    }
    if (st.kind === 'pending') {
      // Said once per reason (the lookup repeats every few seconds while it waits).
      const said = `Slurm job ${id} is ${st.slurm}: ${st.words}${row?.startTime ? `; expected to start ${row.startTime}` : ''}`;
      if (st.blocked)
        throw new ProviderError(`${said}: it will not start as it stands`, {
          fatal: true,
          hint: 'change what holds it on the cluster (`scontrol show job` there), or ask for less',
        });
      if (this.pendingSeen.get(lease.leaseId) === said) return null;
      this.pendingSeen.set(lease.leaseId, said);
      throw new ProviderError(said);
    }
    throw new ProviderError(`Slurm job ${id} ${st.words} (${st.slurm}) before its node joined`, {
      fatal: true,
    });
  }

  async destroyLease(handle: DestroyHandle, signal: AbortSignal): Promise<void> {
    const c = this.cluster(handle.cluster ?? '');
    await this.cancels.cancel(c, handle.jobId ?? '', signal);
  }

  async isGone(handle: DestroyHandle, signal: AbortSignal): Promise<boolean> {
    const c = this.cluster(handle.cluster ?? '');
    const st = await this.withLogin(c, signal, (shell) =>
      this.statusOf(shell, handle.jobId ?? '', signal),
    );
    return st.kind === 'gone';
  }

  /** The user's jobs whose name carries the prefix, on every cluster: a crash mid-submit
   *  leaves nothing unseen. */
  async listLabeled(prefix: string, signal: AbortSignal): Promise<LeaseFacts[]> {
    const out: LeaseFacts[] = [];
    for (const c of readClusters(this.home)) {
      const rows = await this.withLogin(c, signal, (shell) =>
        listJobs(shell, { user: true }, signal),
      );
      for (const r of rows) {
        const st = jobStatus(r.state, r.reason);
        if (!r.name.startsWith(prefix) || st.kind === 'gone') continue;
        out.push({
          ...leaseFacts(c, r.name, r.jobId, 0),
          condition: { state: st.kind === 'running' ? 'running' : 'loading' },
        });
      }
    }
    return out;
  }

  /** What ended a job, in Slurm's words, and what it means to the recovery rules: its
   *  node failed → a lost node; preempted → preempted; a time limit, a cancel, an exit →
   *  not recovered. */
  async whyGone(lease: LeaseFacts, signal: AbortSignal) {
    const c = this.cluster(lease.metadata.cluster ?? '');
    const rec = await this.withLogin(c, signal, (shell) =>
      showJob(shell, lease.contractId, signal),
    );
    const st = rec ? jobStatus(rec.state, rec.reason) : missingJobStatus();
    const words = `Slurm: the job ${st.words} (${st.slurm})`;
    if (st.kind !== 'gone') return { words, cause: 'ended' as const };
    const cause =
      st.cause === 'node_fail'
        ? ('node_lost' as const)
        : st.cause === 'preempted'
          ? ('preempted' as const)
          : ('ended' as const);
    return { words, cause };
  }

  /** A job's state, from squeue (scontrol for one squeue no longer lists). */
  private async statusOf(
    shell: NodeShell,
    id: string,
    signal: AbortSignal,
  ): Promise<SlurmJobStatus> {
    return (await this.rowOf(shell, id, signal)).st;
  }

  private async rowOf(
    shell: NodeShell,
    id: string,
    signal: AbortSignal,
  ): Promise<{ st: SlurmJobStatus; row: SqueueRow | null }> {
    const row =
      (await listJobs(shell, { jobIds: [id] }, signal)).find((r) => r.jobId === id) ?? null;
    if (row) return { st: jobStatus(row.state, row.reason), row };
    const rec = await showJob(shell, id, signal);
    return { st: rec ? jobStatus(rec.state, rec.reason) : missingJobStatus(), row: null };
  }

  /** Runs `work` on the cluster's kept login connection (login-connections.ts). */
  private withLogin<T>(
    c: ClusterEntry,
    signal: AbortSignal,
    work: (shell: NodeShell) => Promise<T>,
  ): Promise<T> {
    return this.logins.withLogin(c, signal, work);
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
