// `configure`: the job's identity, env and params. Secrets stay in this process's memory;
// `D/job.json` gets the rest.
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../atomic-file';
import type { JobFile } from '../wire/protocol';
import { requiredInteger, requiredString, stringMap } from './request-checks';

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
  };
}

export function writeJobFile(path: string, job: JobConfig): void {
  const file: JobFile = {
    jobId: job.jobId,
    attempt: job.attempt,
    env: job.env,
    params: job.params,
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
