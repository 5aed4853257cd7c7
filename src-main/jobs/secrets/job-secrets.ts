import type { ConfigureParams } from '../../../src-agent/wire/protocol';
import type { GpuIdleRule, JobSpec } from '../../contract';
import { REDACTED } from './redact-job';
import { setupEnvRequest, type SetupEnvOptions } from '../host/setup-env-request';

export type ConfigureEnv =
  | { ok: true; env: Record<string, string>; secretEnv?: Record<string, string> }
  | { ok: false; error: string };

/** Splits a job's env into what the agent's `configure` takes: plain values as `env`,
 *  secret values as `secretEnv` (kept in the agent's memory, redacted from its logs).
 *  A job resumed from the ledger holds its secrets only redacted (the ledger never stores
 *  them): then no `secretEnv` is sent, and the agent keeps the ones it was given when the
 *  run started. A secret still naming a variable (`fromEnv`) was never resolved: an error. */
export function configureEnv(jobEnv: JobSpec['env']): ConfigureEnv {
  const env: Record<string, string> = {};
  const secretEnv: Record<string, string> = {};
  let isRedacted = false;
  for (const [k, v] of Object.entries(jobEnv)) {
    if (typeof v === 'string') env[k] = v;
    else if (!('value' in v))
      return { ok: false, error: `secret ${k} was never resolved from $${v.fromEnv}` };
    else if (v.value === REDACTED) isRedacted = true;
    else secretEnv[k] = v.value;
  }
  return isRedacted ? { ok: true, env } : { ok: true, env, secretEnv };
}

/** The `configure` request for a job's phases; throws what `configureEnv` refuses. A job
 *  with a setup gets a persistent environment (`setupEnv`, host/setup-env-request.ts); its
 *  run_setup runs before every run (`runSetup`). */
export function configureParams(
  agentJobId: string,
  job: JobSpec,
  opts: SetupEnvOptions & { attempt?: number; gpuIdle?: GpuIdleRule } = {},
): ConfigureParams {
  const split = configureEnv(job.env);
  if (!split.ok) throw new Error(split.error);
  const { env, secretEnv } = split;
  const setupEnv = setupEnvRequest(job, opts);
  return {
    jobId: agentJobId,
    attempt: opts.attempt ?? 0,
    env,
    ...(secretEnv ? { secretEnv } : {}),
    params: job.params,
    ...(setupEnv ? { setupEnv } : {}),
    ...(job.run_setup ? { runSetup: job.run_setup } : {}),
    ...(opts.gpuIdle ? { gpuIdle: opts.gpuIdle } : {}),
    outputs: job.outputs, // glanced at the run's exit, said with it (PhaseState.glance)
  };
}
