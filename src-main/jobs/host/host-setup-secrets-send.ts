import type { JobSpec } from '../../contract/job';
import { hostSetupSecretEnv } from '../secrets/host-setup-secrets';
import type { AgentRequest } from './host-setup-wait';

/** Gives the node's agent the values of the secrets the job's host_setup entries name
 *  (over the link: never a command line or a file). Nothing when none names one. */
export async function sendHostSetupSecrets(request: AgentRequest, job: JobSpec): Promise<void> {
  const env = hostSetupSecretEnv(job);
  if (!env) return;
  try {
    await request('host_setup.secrets', { env });
  } catch (err) {
    if ((err as { code?: string }).code !== 'unknown_op') throw err;
    throw new Error(
      "the node's agent is older than host_setup secrets: `tender down` that warm node so a fresh one runs this job",
      { cause: err },
    );
  }
}
