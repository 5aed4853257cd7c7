/** Lambda Cloud's retry policy and the spacing of launches; the retry layer itself is the
 *  marketplaces' one (../http/retry.ts). */
import type { Clock, RetryPolicy } from '../http/retry';

export * from '../http/retry';

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
