// The job's phases (setup, then run) and the state the agent keeps of each.
// Part of the agent's protocol (docs/agent-protocol.md), re-exported by protocol.ts; types
// and constants only.

export type Phase = 'setup' | 'run';
export const PHASES: readonly Phase[] = ['setup', 'run'];

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
}
