import { z } from 'zod';
import { JobSpec, PoolSpec } from '../contract/job';

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
  })
  .strict();

export const JobTable = JobSpec.extend({
  workspace: WorkspaceTable.optional(),
  env: z.record(z.string(), z.union([z.string(), SecretEntry])).default({}),
});
export type JobTable = z.infer<typeof JobTable>;

export const JobFile = z.object({ job: JobTable, pool: PoolSpec.optional() }).strict();
export type JobFile = z.infer<typeof JobFile>;

/** The keys each table accepts, for unknown-key messages. */
export const JOB_KEYS = Object.keys(JobTable.shape);
export const POOL_KEYS = Object.keys(PoolSpec.shape);
export const WORKSPACE_KEYS = Object.keys(WorkspaceTable.shape);
export const SECRET_KEYS = Object.keys(SecretEntry.shape);
export const TOP_KEYS = Object.keys(JobFile.shape);
