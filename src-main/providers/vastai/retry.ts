/** Vast.ai's retry policy; the retry layer itself is the marketplaces' one
 *  (../http/retry.ts). */
import type { RetryPolicy } from '../http/retry';

export * from '../http/retry';

// Vast.ai enforces a minimum interval per endpoint of 1 to 4.5 s (x-rate-limit in the
// OpenAPI files) and sends no Retry-After: steps of 1, 2, 4, 8, 15 s clear any of them, and a
// minute is long enough to ride out a short 5xx burst without stalling a run for long.
export const DEFAULT_RETRY: RetryPolicy = {
  baseDelayMs: 1_000,
  maxDelayMs: 15_000,
  deadlineMs: 60_000,
};
