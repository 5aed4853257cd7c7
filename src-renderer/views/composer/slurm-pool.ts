import { PoolSpec, type PoolSpecInput } from '../../../src-main/contract';
import type { ClusterView } from '../../../src-main/contract';
import { EMPTY_SLURM, type SlurmDraft } from '../../store/ui';

/** The fields of a Slurm pool that name something on the cluster (sbatch's --partition,
 *  --account, --qos), in the order the composer shows them. */
export const SLURM_OVERRIDES = ['partition', 'account', 'qos'] as const;
export type SlurmOverride = (typeof SLURM_OVERRIDES)[number];

export const OVERRIDE_LABEL: Record<SlurmOverride, string> = {
  partition: 'Partition',
  account: 'Account',
  qos: 'QOS',
};

/** The most GPUs per node a pool may ask for (PoolSpec's gpu_count). */
export const MAX_SLURM_GPUS = 16;

/** What is wrong with a typed override (the pool's own schema decides), or null; empty is
 *  fine: the cluster's default. */
export function overrideProblem(field: SlurmOverride, typed: string): string | null {
  const t = typed.trim();
  if (t === '' || PoolSpec.shape[field].safeParse(t).success) return null;
  return `${OVERRIDE_LABEL[field]}: letters, digits, . _ - only, starting with a letter or digit`;
}

/** Why a Slurm pool cannot be sent as it stands, or null. */
export function slurmProblem(s: SlurmDraft): string | null {
  if (!s.cluster.trim()) return 'Pick a cluster (add clusters in Settings)';
  for (const f of SLURM_OVERRIDES) {
    const p = overrideProblem(f, s[f]);
    if (p) return p;
  }
  return null;
}

/** A Slurm draft as the pool's fields: `cluster`, the overrides typed, `gpu_count` when GPUs
 *  are asked. Nothing a marketplace means (the provider refuses those). */
export function slurmPoolOf(s: SlurmDraft, count: number, verify: string[]): PoolSpecInput {
  const pool: PoolSpecInput = { provider: 'slurm', count, verify, cluster: s.cluster.trim() };
  for (const f of SLURM_OVERRIDES) if (s[f].trim()) pool[f] = s[f].trim();
  if (s.gpus > 0) pool.gpu_count = s.gpus;
  return pool;
}

/** A job file's `[pool]` Slurm fields as the draft holds them (kept whatever the provider,
 *  so switching to Slurm finds them). */
export function slurmDraftOf(
  pool: Pick<PoolSpec, 'provider' | SlurmOverride | 'cluster' | 'gpu_count'>,
): SlurmDraft {
  return {
    ...EMPTY_SLURM,
    cluster: pool.cluster ?? '',
    partition: pool.partition ?? '',
    account: pool.account ?? '',
    qos: pool.qos ?? '',
    gpus: pool.provider === 'slurm' ? (pool.gpu_count ?? 0) : 0,
  };
}

/** "partition gpu (the cluster's), account ml (yours), QOS default": what an allocation
 *  would be submitted with, the draft's override over the cluster's default. */
export function effectiveSlurm(
  s: SlurmDraft,
  cluster: ClusterView | undefined,
): { field: SlurmOverride; value: string | null; from: 'draft' | 'cluster' | 'none' }[] {
  return SLURM_OVERRIDES.map((field) => {
    const typed = s[field].trim();
    if (typed) return { field, value: typed, from: 'draft' };
    const dflt = cluster?.[field] ?? null;
    return { field, value: dflt, from: dflt ? 'cluster' : 'none' };
  });
}

/** The notional $/h of a Slurm pool for the cost report (the cluster's $/GPU-hour × GPUs ×
 *  nodes); null when the cluster declares no price. Nothing bills. */
export function notionalPerHour(
  s: SlurmDraft,
  count: number,
  cluster: ClusterView | undefined,
): number | null {
  if (!cluster || cluster.gpuHourUsd === null) return null;
  return cluster.gpuHourUsd * s.gpus * count;
}
