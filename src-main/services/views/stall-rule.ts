// "stalled?": a job that has printed nothing for a while with every GPU idle all along is
// probably hung. Pure; shown in the UI and `tender status`, never acted on (killing a job
// for it is the opt-in idle_gpu_util_below of the node's dead-man switch, not this).

/** Silence this long, with idle GPUs, is worth a question mark. */
export const STALL_AFTER_MS = 10 * 60_000;
/** "Idle" GPUs when the run's policy sets no idle_gpu_util_below: every one below 5%. */
export const STALL_UTIL_BELOW = 5;
/** A sample older than this says nothing about now. Above the agent's one-a-minute
 *  heartbeat (equal samples are written once a minute), with room for clock skew. */
export const SAMPLE_STALE_MS = 3 * 60_000;

export interface StallFacts {
  /** The job's setup or run phase is running. */
  isJobRunning: boolean;
  /** The app's clock. */
  now: number;
  /** The latest sample's time (node clock); null: none. */
  latestAt: number | null;
  /** Since when every GPU has read below the threshold (node clock); null: the latest
   *  sample did not, or one GPU has no reading. */
  gpuIdleSince: number | null;
  /** The node's last log line that is not a sample (node clock); null: none seen. */
  lastLineAt: number | null;
  stallAfterMs?: number;
}

/** Whether the sample is too old to describe the node now (node clock against ours). */
export function isStale(latestAt: number, now: number): boolean {
  return now - latestAt > SAMPLE_STALE_MS;
}

export function isStalled(f: StallFacts): boolean {
  if (!f.isJobRunning || f.latestAt === null || f.gpuIdleSince === null) return false;
  if (isStale(f.latestAt, f.now)) return false;
  // Both on the node's clock: quiet since the later of the last line and the GPUs' idling.
  const quietSince = Math.max(f.gpuIdleSince, f.lastLineAt ?? -Infinity);
  return f.latestAt - quietSince >= (f.stallAfterMs ?? STALL_AFTER_MS);
}
