import type { JobSpec } from '../../contract/job';

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

/** Resolves `{ secret, fromEnv }` values from `env` (the environment of the process running
 *  Tender) into `{ secret, value }`. A missing variable is bad input, named; never a value. */
export function resolveSecretsFromEnv(job: JobSpec, env: NodeJS.ProcessEnv): JobSpec {
  const out: JobSpec['env'] = {};
  for (const [name, value] of Object.entries(job.env)) {
    if (typeof value === 'string' || 'value' in value) {
      out[name] = value;
      continue;
    }
    const found = env[value.fromEnv];
    if (found === undefined || found === '') {
      throw Object.assign(
        new Error(`secret ${name} reads $${value.fromEnv}, which is not set where Tender runs`),
        {
          code: 'bad_input',
          hint: `set ${value.fromEnv} in Tender's environment, or give the value in the composer`,
        },
      );
    }
    out[name] = { secret: true, value: found };
  }
  return { ...job, env: out };
}
