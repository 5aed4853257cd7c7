// host_setup entries that name secrets (`{ script = "…", secrets = ["HF_TOKEN"] }`): each
// name must be a secret of the job's env; the values go to the agent by
// `host_setup.secrets` over its link, never into the host declaration, a command line or
// the ledger (docs/host-setup.md, "Secrets").
import type { JobSpec } from '../../contract/job';
import { REDACTED } from './redact-job';

export interface HostSetupSecretProblem {
  /** Where in the job file: `job.host_setup[0].secrets`. */
  path: (string | number)[];
  text: string;
  hint: string;
}

/** The names that are not secrets of the job's env, one problem each. */
export function checkHostSetupSecrets(
  hostSetup: JobSpec['host_setup'],
  env: JobSpec['env'],
): HostSetupSecretProblem[] {
  const problems: HostSetupSecretProblem[] = [];
  hostSetup.forEach((entry, i) => {
    if (typeof entry === 'string') return;
    for (const name of entry.secrets ?? []) {
      const value = env[name];
      if (value !== undefined && typeof value !== 'string') continue;
      problems.push({
        path: ['job', 'host_setup', i, 'secrets'],
        text: `job.host_setup[${i}].secrets names ${name}, which [job.env] ${value === undefined ? 'does not have' : 'has as a plain value'}`,
        hint: `declare it in [job.env] as a secret: ${name} = { secret = true, from_env = "${name}" }`,
      });
    }
  });
  return problems;
}

/** The values of the secrets the job's host_setup entries name, for `host_setup.secrets`;
 *  undefined when no entry names one, or when the job holds them only redacted (resumed
 *  from the ledger: the agent keeps the values it was given, in memory). */
export function hostSetupSecretEnv(job: JobSpec): Record<string, string> | undefined {
  const env: Record<string, string> = {};
  for (const entry of job.host_setup) {
    if (typeof entry === 'string') continue;
    for (const name of entry.secrets ?? []) {
      const value = job.env[name];
      if (value === undefined || typeof value === 'string' || !('value' in value)) continue;
      if (value.value === REDACTED) return undefined;
      env[name] = value.value;
    }
  }
  return Object.keys(env).length > 0 ? env : undefined;
}
