// `configure`: the job's identity, env and params. Secrets stay in this process's memory;
// `D/job.json` gets the rest.
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../atomic-file';
import type { JobFile } from '../../wire/protocol';
import { GANG_ENV_KEY } from '../../wire/protocol';
import { type GpuIdleRule, isGpuIdleRule } from '../../wire/gpu-idle';
import { RequestError, requiredInteger, requiredString, stringMap } from '../socket/request-checks';

export interface JobConfig extends JobFile {
  secretEnv: Record<string, string>;
}

export function parseConfigure(req: Record<string, unknown>): JobConfig {
  return {
    jobId: requiredString(req, 'jobId'),
    attempt: requiredInteger(req, 'attempt'),
    env: stringMap(req, 'env'),
    secretEnv: stringMap(req, 'secretEnv'),
    params: stringMap(req, 'params'),
    ...setupEnvOf(req),
    ...runSetupOf(req),
    ...gangOf(req),
    ...gpuIdleOf(req),
    ...outputsOf(req),
  };
}

function outputsOf(req: Record<string, unknown>): Pick<JobConfig, 'outputs'> {
  const v = req.outputs;
  if (v === undefined || v === null) return {};
  if (!Array.isArray(v) || !v.every((p) => typeof p === 'string'))
    throw new RequestError('bad_request', 'outputs must be a list of strings');
  return { outputs: v };
}

function gpuIdleOf(req: Record<string, unknown>): Pick<JobConfig, 'gpuIdle'> {
  if (req.gpuIdle === undefined || req.gpuIdle === null) return {};
  if (!isGpuIdleRule(req.gpuIdle))
    throw new RequestError(
      'bad_request',
      'gpuIdle must be { belowPct: 0 < x ≤ 100, forMs: > 0, then: "notify" | "stop" | "teardown" }',
    );
  const { belowPct, forMs, then } = req.gpuIdle;
  return { gpuIdle: { belowPct, forMs, then } };
}

function gangOf(req: Record<string, unknown>): Pick<JobConfig, 'gang'> {
  if (req.gang === undefined || req.gang === null) return {};
  const gang = stringMap(req, 'gang');
  const bad = Object.keys(gang).find((k) => !GANG_ENV_KEY.test(k));
  if (bad) throw new RequestError('bad_request', `gang: ${bad} is not a rank variable`);
  return { gang };
}

function runSetupOf(req: Record<string, unknown>): Pick<JobConfig, 'runSetup'> {
  if (req.runSetup === undefined || req.runSetup === null) return {};
  return { runSetup: requiredString(req, 'runSetup') };
}

function setupEnvOf(req: Record<string, unknown>): Pick<JobConfig, 'setupEnv'> {
  const v = req.setupEnv as
    { fingerprint?: unknown; fresh?: unknown; uncached?: unknown; image?: unknown } | undefined;
  if (v === undefined) return {};
  const files = v?.fingerprint;
  const isList = Array.isArray(files) && files.every((f) => typeof f === 'string' && f !== '');
  if (files !== 'auto' && !isList)
    throw new RequestError(
      'bad_request',
      'setupEnv.fingerprint must be a list of file paths or "auto"',
    );
  if (v.image !== undefined && (typeof v.image !== 'string' || v.image === ''))
    throw new RequestError('bad_request', 'setupEnv.image must be a non-empty string');
  return {
    setupEnv: {
      fingerprint: files as string[] | 'auto',
      fresh: v.fresh === true,
      ...(v.uncached === true ? { uncached: true } : {}),
      ...(typeof v.image === 'string' ? { image: v.image } : {}),
    },
  };
}

export function writeJobFile(path: string, job: JobConfig): void {
  const file: JobFile = {
    jobId: job.jobId,
    attempt: job.attempt,
    env: job.env,
    params: job.params,
    ...(job.setupEnv ? { setupEnv: job.setupEnv } : {}),
    ...(job.runSetup ? { runSetup: job.runSetup } : {}),
    ...(job.gang ? { gang: job.gang } : {}),
    ...(job.gpuIdle ? { gpuIdle: job.gpuIdle } : {}),
  };
  writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`);
}

/** The job identity an earlier configure left in `D/job.json`, if any. */
export function readJobIdentity(path: string): { jobId: string; attempt: number } | undefined {
  try {
    const { jobId, attempt } = JSON.parse(readFileSync(path, 'utf8')) as JobFile;
    return { jobId, attempt };
  } catch {
    return undefined;
  }
}

/** The GPU idle rule an earlier configure left in `D/job.json`: a restarted daemon still
 *  enforces it on the job it finds running. */
export function readJobGpuIdle(path: string): GpuIdleRule | undefined {
  try {
    const { gpuIdle } = JSON.parse(readFileSync(path, 'utf8')) as JobFile;
    return isGpuIdleRule(gpuIdle) ? gpuIdle : undefined;
  } catch {
    return undefined;
  }
}
