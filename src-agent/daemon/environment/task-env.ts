// The environment of setup and run (docs/agent-protocol.md, "The task environment").
// Pure: the daemon's env, the job and the GPU count in, the env and dropped keys out.
import { cacheEnv } from './node-cache';

export interface TaskEnvInput {
  /** The daemon's own environment. */
  base: NodeJS.ProcessEnv;
  jobId: string;
  attempt: number;
  env: Record<string, string>;
  secretEnv: Record<string, string>;
  params: Record<string, string>;
  workspace: string;
  output: string;
  /** GPUs nvidia-smi reported; 0 when none or no probe. */
  gpuCount: number;
  /** The job's persistent environment (setup-env.ts), when it has one. */
  envDir?: string;
  /** `TENDER_CACHE` (node-cache.ts); HF_HOME, TORCH_HOME and PIP_CACHE_DIR point into it
   *  unless the job's env sets them. */
  cacheDir?: string;
  /** `TENDER_METRICS`: the file the job appends its metrics to (telemetry/metrics-tailer.ts). */
  metricsFile?: string;
  /** A distributed run's rank variables (checked at configure: GANG_ENV_KEY only). */
  gang?: Record<string, string>;
}

export interface TaskEnv {
  env: Record<string, string>;
  /** Keys of `env`/`secretEnv` that were not applied, sorted, each once. Never values. */
  dropped: string[];
}

const RESERVED_KEYS = new Set(['PATH', 'HOME', 'USER', 'SHELL']);

/** Whether the job may set `key`. Invalid names are refused too: spawn would reject them. */
export function isUserSettable(key: string, gpuCount: number): boolean {
  if (key === '' || key.includes('=') || key.includes('\0')) return false;
  if (key.startsWith('TENDER_') || RESERVED_KEYS.has(key)) return false;
  return !(key === 'CUDA_VISIBLE_DEVICES' && gpuCount > 0);
}

/** `TENDER_PARAM_<KEY>`: upper-cased, anything not A-Z or 0-9 becomes '_'. */
export function paramEnvName(key: string): string {
  return `TENDER_PARAM_${key.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export function buildTaskEnv(input: TaskEnvInput): TaskEnv {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.base)) {
    // The daemon's own TENDER_* (e.g. the app's TENDER_HOME) would read as task contract.
    if (value !== undefined && !key.startsWith('TENDER_')) env[key] = value;
  }
  env.PYTHONUNBUFFERED = '1';
  const dropped = new Set<string>();
  for (const source of [input.env, input.secretEnv]) {
    for (const [key, value] of Object.entries(source)) {
      if (isUserSettable(key, input.gpuCount)) env[key] = String(value);
      else dropped.add(key);
    }
  }
  env.TENDER_WORKSPACE = input.workspace;
  env.TENDER_OUTPUT = input.output;
  env.TENDER_JOB_ID = input.jobId;
  env.TENDER_ATTEMPT = String(input.attempt);
  // A recovered attempt: its checkpoints were restored into the workspace; resume there.
  if (input.attempt > 0) env.TENDER_RESUME = '1';
  if (input.metricsFile) env.TENDER_METRICS = input.metricsFile;
  for (const [key, value] of Object.entries(input.params)) env[paramEnvName(key)] = String(value);
  Object.assign(env, input.gang);
  if (input.cacheDir)
    Object.assign(env, cacheEnv(input.cacheDir, { ...input.env, ...input.secretEnv }));
  if (input.envDir) {
    // Python's venv convention: a venv created at $TENDER_ENV is the one on PATH.
    env.TENDER_ENV = input.envDir;
    env.VIRTUAL_ENV = input.envDir;
    env.PATH = env.PATH ? `${input.envDir}/bin:${env.PATH}` : `${input.envDir}/bin`;
  }
  if (input.gpuCount > 0) {
    env.CUDA_VISIBLE_DEVICES = Array.from({ length: input.gpuCount }, (_, i) => i).join(',');
  }
  return { env, dropped: [...dropped].sort() };
}

/** The agent notice for dropped keys: names only, never values. */
export function droppedKeysNotice(dropped: string[]): string | undefined {
  if (dropped.length === 0) return undefined;
  return `env keys not applied (reserved for the agent or invalid): ${dropped.join(', ')}`;
}

/** The environment of a host-setup entry: the daemon's (without its TENDER_* variables),
 *  PYTHONUNBUFFERED=1 and the cache (a `pip install` there warms the jobs' pip cache). No
 *  job env: host setup belongs to the machine, not to a job. */
export function buildHostSetupEnv(
  base: NodeJS.ProcessEnv,
  cacheDir: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && !key.startsWith('TENDER_')) env[key] = value;
  }
  env.PYTHONUNBUFFERED = '1';
  return { ...env, ...cacheEnv(cacheDir, {}) };
}
