// The job's phases (setup, then run) and the state the agent keeps of each.
// Part of the agent's protocol (docs/agent-protocol.md), re-exported by protocol.ts; types
// and constants only.

import type { OutputsGlance } from './protocol-outputs';

export type Phase = 'setup' | 'run';
export const PHASES: readonly Phase[] = ['setup', 'run'];

/** `TENDER_CACHE`: shared by every job on the machine, kept between leases. */
export interface CacheInfo {
  path: string;
  /** Sum of the sizes of its files (links not followed), measured at `measuredAt`. */
  bytes: number;
  measuredAt: number;
}

/** `D/phases/<phase>.json`. */
export interface PhaseState {
  phase: Phase;
  command: string;
  state: 'running' | 'exited';
  pid: number | null;
  startedAt: number;
  exitedAt: number | null;
  /** Exit status; null when killed by a signal or when the outcome is unknown. */
  code: number | null;
  /** e.g. 'SIGKILL' when killed by a signal. */
  signal: string | null;
  cancelled: boolean;
  /** Stopped by the agent on a rule of the job's policy (the GPU idle rule), not by a
   *  request: the words for it. */
  stoppedBy?: string;
  /** Setup only: skipped, its persistent environment was ready (nothing was spawned). */
  cached?: boolean;
  /** Exited: the log's last record once the exit was logged. A client that has stored the
   *  records up to it has every line of the phase (no `status` to ask for `lastSeq`). */
  seq?: number;
  /** The run phase, exited: its outputs then, as `outputs.glance` answers for the paths
   *  `configure` named (`outputs`); absent where configure named none. */
  glance?: OutputsGlance;
  /** The run phase, exited: the node's TENDER_CACHE as measured just after (`status`'s
   *  `cache`), where the walk took a moment; absent otherwise (then `status` says it). */
  cache?: CacheInfo;
}
