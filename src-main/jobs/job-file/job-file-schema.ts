import { z } from 'zod';
import { JobSpec, PoolSpec, RecoverySpec } from '../../contract/job';
import { GpuIdleAction } from '../../contract/gpu-idle';
import { AfterJob, parseDuration } from '../../contract/policy';

/**
 * The shape of `tender.toml` as written, before paths and secrets are resolved into a
 * `JobSpec`. It reuses the contract's field schemas so the two cannot drift apart; only the
 * parts a person writes differently from what the app carries are redefined here.
 */

/** `{ secret = true, from_env = "VAR" }` or `{ secret = true, value = "…" }`. */
export const SecretEntry = z
  .object({
    secret: z.literal(true),
    value: z.string().optional(),
    from_env: z.string().min(1).optional(),
  })
  .strict();
export type SecretEntry = z.infer<typeof SecretEntry>;

export const WorkspaceTable = z
  .object({
    /** Relative to the job file's folder, or absolute. */
    workdir: z.string().min(1).default('.'),
    exclude: z.array(z.string().min(1)).default([]),
    /** Files that look like secrets (`.env`, `id_rsa` …) are pushed knowingly. */
    push_secrets: z.boolean().optional(),
    /** The workdir is knowingly outside the job file's folder (`..`, absolute, `~`). */
    workdir_outside: z.boolean().optional(),
  })
  .strict();

export const JobTable = JobSpec.omit({
  checkpoint_every_s: true,
  recovery: true,
  sweep: true,
}).extend({
  workspace: WorkspaceTable.optional(),
  /** How often `checkpoints` are pulled while the job runs (default 5 min). */
  checkpoint_every: z
    .string()
    .refine((t) => (parseDuration(t) ?? 0) >= 5_000, {
      message: 'checkpoint_every must be a duration of at least 5s, e.g. "5m"',
    })
    .optional(),
  env: z.record(z.string(), z.union([z.string(), SecretEntry])).default({}),
});
export type JobTable = z.infer<typeof JobTable>;

const DurationText = z.string().refine((t) => parseDuration(t) !== undefined, {
  message: 'not a duration: write e.g. "90s", "20m", "6h", "1h30m", or "none"',
});

/** `gpu_idle = { below = 10, for = "30m", then = "stop" }`: every key has a default, so
 *  `gpu_idle = {}` is the rule as documented (docs/money-safety.md, "GPU idle rule"). */
export const GPU_IDLE_DEFAULTS = { below: 10, for: '30m', then: 'stop' } as const;
export const GpuIdleTable = z
  .object({
    /** Percent: a GPU reading below it is idle. */
    below: z.number().gt(0).max(100).default(GPU_IDLE_DEFAULTS.below),
    /** How long every GPU must stay below it while the job runs. At least 1s (short
     *  windows are for tests: the samples come every 5 s). */
    for: DurationText.refine((t) => (parseDuration(t) ?? 0) >= 1_000, {
      message:
        'for must be a duration of at least 1s, e.g. "30m" ("none" is not allowed: remove gpu_idle to turn the rule off)',
    }).default(GPU_IDLE_DEFAULTS.for),
    then: GpuIdleAction.default(GPU_IDLE_DEFAULTS.then),
  })
  .strict();
export type GpuIdleTable = z.infer<typeof GpuIdleTable>;

/** `[policy]`: the run's lease policy (docs/money-safety.md); what is left out comes from
 *  Settings. */
export const PolicyTable = z
  .object({
    max_duration: DurationText.optional(),
    idle_timeout: DurationText.optional(),
    budget_usd: z.number().positive().optional(),
    after_job: AfterJob.optional(),
    unreachable_grace: DurationText.refine((t) => (parseDuration(t) ?? 0) >= 1_000, {
      message: 'unreachable_grace must be a duration of at least 1s ("none" is not allowed)',
    }).optional(),
    collect_grace: DurationText.refine((t) => (parseDuration(t) ?? 0) >= 1_000, {
      message: 'collect_grace must be a duration of at least 1s ("none" is not allowed)',
    }).optional(),
    /** Percent: a job whose GPUs all sit below it for idle_timeout counts as idle. */
    idle_gpu_util_below: z.number().gt(0).max(100).optional(),
    /** What the node does when the job leaves every GPU idle (GpuIdleTable). */
    gpu_idle: GpuIdleTable.optional(),
  })
  .strict();
export type PolicyTable = z.infer<typeof PolicyTable>;

export const JobFile = z
  .object({
    job: JobTable,
    pool: PoolSpec.optional(),
    policy: PolicyTable.optional(),
    recovery: RecoverySpec.optional(),
    /** `[sweep]`: axes and cells, read by job-file-sweep.ts (any key is an axis). */
    sweep: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type JobFile = z.infer<typeof JobFile>;

/** The keys each table accepts, for unknown-key messages. */
export const JOB_KEYS = Object.keys(JobTable.shape);
export const POOL_KEYS = Object.keys(PoolSpec.shape);
export const WORKSPACE_KEYS = Object.keys(WorkspaceTable.shape);
export const SECRET_KEYS = Object.keys(SecretEntry.shape);
export const POLICY_KEYS = Object.keys(PolicyTable.shape);
export const GPU_IDLE_KEYS = Object.keys(GpuIdleTable.shape);
export const RECOVERY_KEYS = Object.keys(RecoverySpec.shape);
export const TOP_KEYS = Object.keys(JobFile.shape);
