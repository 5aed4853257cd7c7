import type { ProviderPolling } from '../../providers/provider';
import { DEFAULT_DEADLINES, type BootstrapDeadlines } from '../../nodes/bootstrap-session';
import { DEFAULT_PULL_STALL_MS } from '../../nodes/pull-watch';
import { LINGER_MS } from '../../transport/shell-pool';

export interface Timing extends ProviderPolling {
  deadlines: BootstrapDeadlines;
  endpointDeadlineMs: number;
  /** An image pull with no progress for this long is given up, unless the pool's
   *  `pull_stall` says otherwise (nodes/pull-watch.ts). */
  pullStallMs: number;
  destroyConfirmDeadlineMs: number;
  cancelGraceMs: number;
  teardownMaxAttempts: number;
  /** Leases one node may go through when boots fail, on providers that can replace. */
  maxBootAttempts: number;
  /** Multiplies the destroy retry backoff (2 s, 4 s … 5 min); tests make it small. */
  destroyRetryScale: number;
  /** How often live leases are reconciled with their providers. */
  reconcileEveryMs: number;
  /** How often a run's budget and max duration are checked by the app. */
  guardEveryMs: number;
  /** How long an ssh connection nobody uses is kept for the next user of its endpoint
   *  (transport/shell-pool.ts); 0: each user dials its own. */
  shellLingerMs: number;
}

export const DEFAULT_TIMING: Timing = {
  deadlines: DEFAULT_DEADLINES,
  endpointPollMs: 10_000, // provider APIs rate-limit; never a tight loop
  endpointDeadlineMs: 15 * 60_000,
  pullStallMs: DEFAULT_PULL_STALL_MS,
  destroyPollMs: 5_000,
  destroyConfirmDeadlineMs: 5 * 60_000,
  cancelGraceMs: 10_000,
  teardownMaxAttempts: 4,
  maxBootAttempts: 3,
  destroyRetryScale: 1,
  // An outbid or exited lease is seen by the pass that lists it: within 30 s. One listing
  // call per provider with a live lease per pass, far below Vast.ai's per-endpoint limits.
  reconcileEveryMs: 30_000,
  guardEveryMs: 15_000,
  shellLingerMs: LINGER_MS,
};
