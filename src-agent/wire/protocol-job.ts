// A job's configuration as the agent is given it (`configure`) and keeps it (`D/job.json`).
// Part of the agent's protocol (docs/agent-protocol.md), re-exported by protocol.ts; types
// and constants only.
import type { GpuIdleRule } from './gpu-idle';

export interface ConfigureParams {
  jobId: string;
  attempt: number;
  env?: Record<string, string>;
  /** Kept in the daemon's memory only; redacted from every log line. */
  secretEnv?: Record<string, string>;
  params?: Record<string, string>;
  /** The job's setup builds a persistent environment (setup-env.ts) keyed by the setup
   *  command, workspace files and the image; `fresh` rebuilds it even when ready. */
  setupEnv?: SetupEnvRequest;
  /** Run before the run phase's command, every run, in the same environment; a non-zero
   *  exit ends the run phase with that code. */
  runSetup?: string;
  /** A distributed run's rank environment: TENDER_NODE_RANK, MASTER_ADDR… (GANG_ENV_KEY). */
  gang?: Record<string, string>;
  /** `[policy] gpu_idle`: what the agent does when the run phase leaves every GPU idle
   *  (gpu-idle.ts); absent: no rule. */
  gpuIdle?: GpuIdleRule;
  /** The job's outputs (`outputs.glance` paths): the run phase's exit state carries a
   *  glance of them (`PhaseState.glance`). */
  outputs?: string[];
}

export interface SetupEnvRequest {
  /** The workspace files that key the environment (`setup_fingerprint`), or `auto`: the
   *  usual dependency files found in the workspace and the files the setup command names
   *  (environment/setup-key.ts). */
  fingerprint: string[] | 'auto';
  /** Build it again even when ready: `--fresh-setup`, or every run (`setup_cache = false`,
   *  then `uncached` says so in the log). */
  fresh: boolean;
  uncached?: boolean;
  /** The node's image (a marketplace node's container), part of the key. */
  image?: string;
}

/** `D/job.json`: the job configuration without its secrets. */
export interface JobFile {
  jobId: string;
  attempt: number;
  env: Record<string, string>;
  params: Record<string, string>;
  setupEnv?: SetupEnvRequest;
  runSetup?: string;
  /** A distributed run's rank environment (GANG_ENV_KEY names only). */
  gang?: Record<string, string>;
  /** Kept so a restarted daemon still enforces it. */
  gpuIdle?: GpuIdleRule;
  outputs?: string[];
}

/** What a distributed run tells each rank (the app's jobs/distributed/gang-env.ts): the
 *  only variables of the task contract the app sets. */
export const GANG_ENV_KEY =
  /^(TENDER_NODE_RANK|TENDER_NUM_NODES|TENDER_NODE_IPS|TENDER_GPUS_PER_NODE|MASTER_ADDR|MASTER_PORT|SKYPILOT_[A-Z_]+|DSTACK_[A-Z_]+)$/;
