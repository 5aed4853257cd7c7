/** The one retry layer of the Lambda Cloud adapter: which failures are retried, how long to
 *  wait, when to give up, and the spacing of launches. Nothing above it retries an HTTP
 *  call (the orchestrator retries whole operations with its own deadlines). */

export interface RetryPolicy {
  /** The first backoff step. */
  baseDelayMs: number;
  /** No single wait is longer than this. */
  maxDelayMs: number;
  /** No new attempt starts once this much time has passed since the first one began. */
  deadlineMs: number;
}

// Lambda documents ~1 request/s in general and 1 launch per 12 s; a 429 says nothing more
// (no Retry-After is documented). Steps of 1, 2, 4, 8, 16, 20 s clear either limit, and
// 90 s rides out a short 5xx burst. (SkyPilot: 10 s initial, ×10 max, 6 attempts.)
export const DEFAULT_RETRY: RetryPolicy = {
  baseDelayMs: 1_000,
  maxDelayMs: 20_000,
  deadlineMs: 90_000,
};

/** Lambda's documented launch limit: one `/instance-operations/launch` per 12 s (5/min). */
export const DEFAULT_LAUNCH_INTERVAL_MS = 12_000;

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
  | { kind: 'status'; status: number }
  /** No response. `code` is the socket error (ECONNREFUSED…), null when unknown. */
  | { kind: 'network'; code: string | null }
  /** Our per-request timeout fired: the request may or may not have been acted on. */
  | { kind: 'timeout' };

export type Verdict = 'retry' | 'final' | 'outcome-unknown';

/** Errors raised before a single byte could reach the server: safe to retry any request. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/** The retry table. `idempotent` is false for a launch: repeating it could rent a second
 *  VM, so any failure after which it may have happened (5xx, timeout, a reset mid-request)
 *  is `outcome-unknown`, never retried; the orchestrator looks the label up instead. A 429
 *  is retried even for a launch: the rate limiter turns a request away before it runs. */
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
 *  other half at random (a 429 burst always waits; clients do not wake in step). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + (step / 2) * Math.min(Math.max(random(), 0), 1));
}

export type AttemptResult<T> =
  { ok: true; value: T } | { ok: false; retryable: boolean; error: Error };

export interface RetryRun {
  policy: RetryPolicy;
  clock: Clock;
  random: () => number;
  signal: AbortSignal;
  /** The error to throw when giving up on a retryable failure. */
  giveUp(last: Error, attempts: number, elapsedMs: number): Error;
}

/** Runs `attempt` until it succeeds, fails for good, or the deadline leaves no room for the
 *  next wait. A running attempt is bounded by its own per-request timeout. */
export async function withRetry<T>(
  attempt: (n: number) => Promise<AttemptResult<T>>,
  run: RetryRun,
): Promise<T> {
  const started = run.clock.now();
  for (let n = 0; ; n++) {
    const result = await attempt(n);
    if (result.ok) return result.value;
    if (!result.retryable) throw result.error;
    const delay = backoffDelay(n, run.policy, run.random);
    const elapsed = run.clock.now() - started;
    if (elapsed + delay > run.policy.deadlineMs) throw run.giveUp(result.error, n + 1, elapsed);
    await run.clock.sleep(delay, run.signal);
  }
}

/** Spaces launches at least `intervalMs` apart within this process, so the nodes of one run
 *  do not spend the launch limit on 429s. Each caller takes the next free slot in turn. */
export class LaunchSpacing {
  private next = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly clock: Clock,
  ) {}

  /** Waits for this caller's slot (its 429 retries included in the slot: a retry waits its
   *  own backoff, which is at least as long as any spacing it would have kept). */
  async take(signal: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const at = Math.max(now, this.next);
    this.next = at + this.intervalMs;
    if (at > now) await this.clock.sleep(at - now, signal);
  }
}
