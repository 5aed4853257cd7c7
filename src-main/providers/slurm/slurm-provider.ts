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
import { execCapture, shq } from '../../transport/exec-helpers';
import type { NodeShell } from '../../transport/node-shell';
import type { NodeShape } from '../pool-shapes';
import { batchScript } from './batch-script';
import { clusterKeyScope, findCluster, readClusters, type ClusterEntry } from './clusters-file';
import { submitJob } from './sbatch';
import { cancelJobs } from './scancel';
import { showJob } from './scontrol';
import { listJobs, type SqueueRow } from './squeue';
import { jobStatus, missingJobStatus, type SlurmJobStatus } from './slurm-status';

export const SLURM_KIND = 'slurm';

export type ClusterConnector = (cluster: ClusterEntry, signal: AbortSignal) => Promise<NodeShell>;

/** Cancels asked for within this are one `scancel` (Tear down all of 20 allocations: one
 *  round trip, not 20). */
const CANCEL_GATHER_MS = 30;
/** How long closing waits for the login connections to close. */
const CLOSE_WAIT_MS = 1_000;
/** A login connection nobody used for this long is closed. */
const LOGIN_IDLE_MS = 20_000;

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
    endpointPollMs: 500,
    destroyPollMs: 1_000,
    endpointDeadlineMs: 7 * 24 * 3_600_000,
  };
  private readonly pendingSeen = new Map<string, string>();
  private readonly cancels = new Map<string, { ids: Set<string>; done: Promise<void> }>();
  private readonly logins = new Map<
    string,
    { shell: Promise<NodeShell>; timer: NodeJS.Timeout | null }
  >();

  constructor(
    private readonly home: string,
    private readonly connect: ClusterConnector,
  ) {}

  async close(): Promise<void> {
    const held = [...this.logins.values()];
    this.logins.clear();
    for (const h of held) if (h.timer) clearTimeout(h.timer);
    // A connection still being made is not waited for (an unreachable login node would hold
    // the core's close for its whole connect deadline): it closes itself once made.
    const closing = Promise.allSettled(held.map((h) => h.shell.then((s) => s.close())));
    await Promise.race([closing, new Promise((r) => setTimeout(r, CLOSE_WAIT_MS).unref())]);
  }

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
      if (existing) return { lease: facts(c, req.label, existing.jobId, gpus), endpoint: null };
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
      return { lease: facts(c, req.label, job.jobId, gpus), endpoint: null };
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
      return {
        ...loginEndpoint(c),
        slurmJobId: id,
        ...(addr ? { peer: { host: addr, ports: {} } } : {}),
      };
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
    await this.cancel(c, handle.jobId ?? '', signal);
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
          ...facts(c, r.name, r.jobId, 0),
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
        this.withLogin(c, signal, (shell) => cancelJobs(shell, [...ids], signal)).then(
          () => resolve(),
          reject,
        );
      }, CANCEL_GATHER_MS);
    });
    this.cancels.set(c.name, { ids, done });
    return done;
  }

  /** Runs `work` on the cluster's login connection: one kept per cluster (lookups poll
   *  every half second; a login node should not see a new SSH connection for each), closed
   *  after a quiet spell, made again when it dropped. A command that fails because the
   *  connection went is tried once more on a new one. */
  private async withLogin<T>(
    c: ClusterEntry,
    signal: AbortSignal,
    work: (shell: NodeShell) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const shell = await this.loginShell(c, signal);
      try {
        const out = await work(shell);
        this.keepAlive(c.name);
        return out;
      } catch (err) {
        const isDropped = await Promise.race([
          shell.closed?.then(() => true) ?? Promise.resolve(false),
          new Promise<boolean>((r) => setTimeout(() => r(false), 0)),
        ]);
        if (!isDropped || attempt > 0) throw err;
        this.logins.delete(c.name);
      }
    }
  }

  private loginShell(c: ClusterEntry, signal: AbortSignal): Promise<NodeShell> {
    const held = this.logins.get(c.name);
    if (held) return held.shell;
    const shell = this.connect(c, signal).catch((err: Error) => {
      this.logins.delete(c.name);
      throw new ProviderError(
        `cannot reach ${c.name}'s login node ${c.user}@${c.host}:${c.port}: ${err.message}`,
        {
          hint: c.identityFile
            ? `check ${c.identityFile} is a key the login node accepts`
            : `add ${this.home}/keys/id_ed25519.pub to ~/.ssh/authorized_keys on the login node`,
        },
      );
    });
    const entry = { shell, timer: null as NodeJS.Timeout | null };
    this.logins.set(c.name, entry);
    void shell.then(
      (s) => s.closed?.then(() => this.logins.get(c.name) === entry && this.logins.delete(c.name)),
      () => {},
    );
    return shell;
  }

  private keepAlive(name: string): void {
    const held = this.logins.get(name);
    if (!held) return;
    if (held.timer) clearTimeout(held.timer);
    held.timer = setTimeout(() => {
      if (this.logins.get(name) !== held) return;
      this.logins.delete(name);
      void held.shell.then(
        (s) => s.close(),
        () => {},
      );
    }, LOGIN_IDLE_MS);
    held.timer.unref();
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

/** A compute node's address (`NodeAddr`, else its name), from `scontrol show node`. */
async function nodeAddress(
  shell: NodeShell,
  node: string,
  signal: AbortSignal,
): Promise<string | null> {
  const r = await execCapture(shell, `scontrol show node ${shq(node)} -o`, { signal });
  if (r.code !== 0) return /^[A-Za-z0-9._-]+$/.test(node) ? node : null;
  return /\bNodeAddr=(\S+)/.exec(r.stdout)?.[1] ?? node;
}
