// A run as an agent reads it: small, snake_case, every figure it acts on, no job spec (and
// so no environment value).
import { z } from 'zod';
import type { RunView } from '../../contract';
import { usd } from './commitment';

export const RunSummary = z.object({
  run_id: z.string(),
  job: z.string(),
  provider: z.string(),
  /** Who started it: `mcp:<client>` for this server's runs, `cli`, `app`. */
  origin: z.string().nullable(),
  status: z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']),
  failed_reason: z.string().nullable(),
  /** No process drives it (it goes on on its nodes). */
  detached: z.boolean(),
  nodes: z.array(
    z.object({
      node: z.string(),
      stage: z.string(),
      lease_id: z.string().nullable(),
      job_phase: z.string().nullable(),
      exit_code: z.number().nullable(),
      /** Mean GPU utilisation of the last sample, percent; null: no sample. */
      gpu_util: z.number().nullable(),
    }),
  ),
  sweep: z
    .object({ total: z.number(), completed: z.number(), failed: z.number(), running: z.number() })
    .nullable(),
  cost: z.object({
    accrued_usd: z.number(),
    burn_usd_per_hour: z.number(),
    budget_usd: z.number().nullable(),
  }),
  max_duration_ms: z.number().nullable(),
  outputs_dir: z.string(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
});
export type RunSummary = z.infer<typeof RunSummary>;

export function runSummary(v: RunView): RunSummary {
  return {
    run_id: v.id,
    job: v.jobName,
    provider: v.provider,
    origin: v.origin,
    status: v.status,
    failed_reason: v.failedReason,
    detached: v.detached,
    nodes: v.nodes.map((n) => ({
      node: n.logicalId,
      stage: n.stage,
      lease_id: n.leaseId,
      job_phase: n.jobPhase,
      exit_code: n.exitCode,
      gpu_util: meanUtil(n.gpu?.gpus ?? []),
    })),
    sweep: v.sweep
      ? {
          total: v.sweep.total,
          completed: v.sweep.completed,
          failed: v.sweep.failed,
          running: v.sweep.running,
        }
      : null,
    cost: {
      accrued_usd: round(v.cost.accruedUsd),
      burn_usd_per_hour: round(v.cost.burnUsdPerHour),
      budget_usd: v.cost.budgetUsd,
    },
    max_duration_ms: v.policy?.maxDurationMs ?? null,
    outputs_dir: v.outputsDir,
    started_at: new Date(v.createdAt).toISOString(),
    ended_at: v.endedAt === null ? null : new Date(v.endedAt).toISOString(),
  };
}

/** "r-k3x9a2mf train: running (node-0 run), $0.04 so far" */
export function runLine(s: RunSummary): string {
  const nodes = s.nodes.map((n) => `${n.node} ${n.job_phase ?? n.stage}`).join(', ');
  const exit = s.nodes
    .filter((n) => n.exit_code !== null)
    .map((n) => `${n.node} exit ${n.exit_code}`)
    .join(', ');
  const why = s.failed_reason ? `: ${s.failed_reason}` : '';
  return `${s.run_id} ${s.job} on ${s.provider}: ${s.status}${why} (${nodes}${exit ? `; ${exit}` : ''}), ${usd(s.cost.accrued_usd)} so far`;
}

function meanUtil(gpus: readonly { util: number | null }[]): number | null {
  const known = gpus.map((g) => g.util).filter((u): u is number => u !== null);
  return known.length === 0 ? null : Math.round(known.reduce((a, b) => a + b, 0) / known.length);
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
