/** The one retry layer of the marketplace adapters (vastai/, runpod/, lambda/): which
 *  failures are retried, how long to wait, and when to give up. Each adapter keeps its own
 *  policy (its `retry.ts`: the provider's limits); nothing above retries an HTTP call (the
 *  orchestrator retries whole operations, with its own deadlines), nothing below either. */

export interface RetryPolicy {
  /** The first backoff step. */
  baseDelayMs: number;
  /** No single backoff wait is longer than this (a Retry-After may ask for more, up to the
   *  deadline). */
  maxDelayMs: number;
  /** No new attempt starts once this much time has passed since the first one began. */
  deadlineMs: number;
}

export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    }),
};

/** How one attempt failed, as far as retrying is concerned. */
export type Failure =
  /** `retryAfterMs`: what the answer's Retry-After asked for, null when it had none. */
  | { kind: 'status'; status: number; retryAfterMs?: number | null }
  /** No response. `code` is the socket error (ECONNREFUSED…), null when unknown. */
  | { kind: 'network'; code: string | null }
  /** Our per-request timeout fired: the request may or may not have been acted on. */
  | { kind: 'timeout' };

export type Verdict = 'retry' | 'final' | 'outcome-unknown';

/** Errors raised before a single byte could reach the server: safe to retry any request. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/** The retry table. `idempotent` is false for a create (Vast's PUT /asks/{id}/, RunPod's
 *  podFindAndDeployOnDemand, Lambda's launch): no marketplace has an idempotency key, so
 *  repeating one could rent a second machine; any failure after which it may have happened
 *  is `outcome-unknown` and never retried — the label is looked up instead. A 429 is retried
 *  even then: the rate limiter turns a request away before anything runs. */
export function verdictFor(failure: Failure, idempotent: boolean): Verdict {
  const unsure: Verdict = idempotent ? 'retry' : 'outcome-unknown';
  switch (failure.kind) {
    case 'status':
      if (failure.status === 429) return 'retry';
      if (failure.status >= 500 && failure.status <= 599) return unsure;
      return 'final';
    case 'network':
      return failure.code !== null && NOT_SENT.has(failure.code) ? 'retry' : unsure;
    case 'timeout':
      return unsure;
  }
}

/** Exponential backoff with equal jitter: half of the capped step for sure, plus up to the
 *  other half at random (so a 429 burst always waits, and clients do not wake in step). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + (step / 2) * Math.min(Math.max(random(), 0), 1));
}

/** `Retry-After` as ms: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent
 *  or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null || value.trim() === '') return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : null;
}

export type AttemptResult<T> =
  | { ok: true; value: T }
  | { ok: false; retryable: boolean; error: Error; retryAfterMs?: number | null };

export interface RetryRun {
  policy: RetryPolicy;
  clock: Clock;
  random: () => number;
  signal: AbortSignal;
  /** The error to throw when giving up on a retryable failure. */
  giveUp(last: Error, attempts: number, elapsedMs: number): Error;
}

/** Runs `attempt` until it succeeds, fails for good, or the deadline leaves no room for the
 *  next wait. A Retry-After longer than the backoff is waited in full (the server said when
 *  it will take the call again); the deadline is checked between attempts. */
export async function withRetry<T>(
  attempt: (n: number) => Promise<AttemptResult<T>>,
  run: RetryRun,
): Promise<T> {
  const started = run.clock.now();
  for (let n = 0; ; n++) {
    const result = await attempt(n);
    if (result.ok) return result.value;
    if (!result.retryable) throw result.error;
    const delay = Math.max(backoffDelay(n, run.policy, run.random), result.retryAfterMs ?? 0);
    const elapsed = run.clock.now() - started;
    if (elapsed + delay > run.policy.deadlineMs) throw run.giveUp(result.error, n + 1, elapsed);
    await run.clock.sleep(delay, run.signal);
  }
}
