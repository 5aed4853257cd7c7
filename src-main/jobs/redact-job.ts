import type { JobSpec } from '../contract/job';

/** What a secret value looks like once redacted. */
export const REDACTED = '***';

/**
 * The job with every secret value replaced by `***`: what may be stored in the ledger,
 * logged, or printed. Plain env values are kept. The input is not modified.
 */
export function redactJob(job: JobSpec): JobSpec {
  const env: JobSpec['env'] = {};
  for (const [name, value] of Object.entries(job.env)) {
    env[name] = typeof value === 'string' ? value : { secret: true, value: REDACTED };
  }
  return { ...job, env };
}
