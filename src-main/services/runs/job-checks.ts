import type { JobSpec } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { checkName, checkParams } from '../../jobs/job-file/job-file-env';
import { checkHostSetupSecrets } from '../../jobs/secrets/host-setup-secrets';
import {
  checkCheckpoints,
  checkOutputs,
  checkSetupFingerprint,
  resolveWorkdir,
} from '../../jobs/job-file/job-file-paths';

/** Checks a job that came through the contract (the job-file loader checks its own). */
export function checkJob(job: JobSpec): JobSpec {
  if (job.workspace) {
    const { workdir, problem } = resolveWorkdir(job.workspace.workdir, process.cwd());
    if (problem) throw new TenderError('bad_input', problem.text, problem.hint);
    job = { ...job, workspace: { ...job.workspace, workdir } };
  }
  const { outputs, problems } = checkOutputs(job.outputs);
  if (problems.length > 0) throw new TenderError('bad_input', problems[0]!.text);
  const ckpt = checkCheckpoints(job.checkpoints);
  if (ckpt.length > 0) throw new TenderError('bad_input', ckpt[0]!.text, ckpt[0]!.hint);
  if (!job.workspace && job.setup_fingerprint.length > 0)
    throw new TenderError(
      'bad_input',
      'setup_fingerprint names workspace files, but the job has no workspace',
      'give the job a workspace folder, or leave setup_fingerprint out',
    );
  const fingerprint = job.workspace
    ? checkSetupFingerprint(
        job.setup_fingerprint,
        job.setup,
        job.workspace.workdir,
        job.setup_cache,
      )
    : [];
  if (fingerprint.length > 0)
    throw new TenderError('bad_input', fingerprint[0]!.text, fingerprint[0]!.hint);
  // The same rules as a tender.toml's: a run started from the UI gets the same checks.
  for (const name of Object.keys(job.env)) {
    const bad = checkName(name);
    if (bad) throw new TenderError('bad_input', bad.text, bad.hint);
  }
  const secrets = checkHostSetupSecrets(job.host_setup, job.env);
  if (secrets.length > 0) throw new TenderError('bad_input', secrets[0]!.text, secrets[0]!.hint);
  const params = checkParams(job.params);
  if (params.length > 0) throw new TenderError('bad_input', params[0]!.text);
  return { ...job, outputs };
}
