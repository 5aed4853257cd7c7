/** RunPod's retry policy; the retry layer itself is the marketplaces' one (../http/retry.ts,
 *  which waits a Retry-After in full). */
import type { RetryPolicy } from '../http/retry';

export * from '../http/retry';

// RunPod documents no limits for GraphQL; REST v2 answers 429 with Retry-After (seconds).
// Steps of 1, 2, 4, 8, 15 s and a minute in all ride out a short 5xx or 429 burst without
// stalling a run for long.
export const DEFAULT_RETRY: RetryPolicy = {
  baseDelayMs: 1_000,
  maxDelayMs: 15_000,
  deadlineMs: 60_000,
};
