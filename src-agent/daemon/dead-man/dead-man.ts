// The dead-man switch's rules (docs/agent-protocol.md, "The dead-man switch"). Pure: the
// daemon's dead-man-switch.ts passes in the monotonic time, whether a phase runs and, for
// the GPU-idle rule, since when the job's GPUs have sat below the policy's threshold.
import type { LeaseParams, LeaseResult, TeardownCause } from '../../wire/protocol';

/** However long the grace, a collected node waits at most this for the app to destroy it. */
export const JOB_DONE_MAX_WAIT_MS = 300_000;

/** Times are on the monotonic clock (ms). */
export interface DeadManState {
  /** The last renewal's policy; every renewal replaces it whole. */
  policy: LeaseParams;
  armedAt: number;
  lastRenewalAt: number;
  /** When the first renewal saying `collected` arrived; null while not collected. */
  collectedAt: number | null;
  /** Last time a phase was seen running, or a renewal said `inUse`; null: never. */
  lastBusyAt: number | null;
  /** When this daemon saw the job's run phase exit; null: not (yet). */
  jobEndedAt?: number | null;
}

export interface Firing {
  cause: TeardownCause;
  reason: string;
}

interface Deadline {
  cause: TeardownCause;
  at: number;
  reason: (now: number) => string;
}

/** Arms the switch (no state yet) or renews it. */
export function renewState(
  state: DeadManState | undefined,
  policy: LeaseParams,
  now: number,
): DeadManState {
  return {
    policy,
    armedAt: state?.armedAt ?? now,
    lastRenewalAt: now,
    collectedAt: policy.collected ? (state?.collectedAt ?? now) : null,
    lastBusyAt: policy.inUse ? now : (state?.lastBusyAt ?? null),
    jobEndedAt: state?.jobEndedAt ?? null,
  };
}

/** The job's run phase exited: the node was busy until now, and its outputs wait. */
export function noteJobEnded(state: DeadManState, now: number): DeadManState {
  return { ...state, lastBusyAt: now, jobEndedAt: now };
}

/** A phase is running now (or has just ended): the idle clock restarts here. */
export function noteBusy(state: DeadManState, now: number): DeadManState {
  return { ...state, lastBusyAt: now };
}

/** What fires now, if anything: of the deadlines passed, the earliest. `gpuIdleSince`:
 *  while the run phase runs, since when every GPU has read below the policy's
 *  `idleGpuUtilBelow` (null: one is busy, no reading, or no run phase). */
export function due(
  state: DeadManState,
  now: number,
  isPhaseRunning: boolean,
  gpuIdleSince: number | null = null,
): Firing | null {
  const passed = deadlines(state, isPhaseRunning, gpuIdleSince).filter((d) => d.at <= now);
  const first = earliest(passed);
  return first ? { cause: first.cause, reason: first.reason(now) } : null;
}

/** The earliest deadline as things stand (the renewal's always exists), in whole ms. */
export function nextDeadline(
  state: DeadManState,
  now: number,
  isPhaseRunning: boolean,
  gpuIdleSince: number | null = null,
): LeaseResult {
  const first = earliest(deadlines(state, isPhaseRunning, gpuIdleSince));
  // While a job runs with no other limit, nothing is due: report the renewal's horizon.
  if (!first) return { firesInMs: state.policy.graceMs, cause: 'unreachable' };
  return { firesInMs: Math.max(0, Math.round(first.at - now)), cause: first.cause };
}

/** How often the switch is checked when the lease does not say. */
export function defaultCheckMs(graceMs: number): number {
  return Math.min(15_000, Math.max(100, graceMs / 4));
}

function deadlines(
  state: DeadManState,
  isPhaseRunning: boolean,
  gpuIdleSince: number | null,
): Deadline[] {
  const p = state.policy;
  const renewed = state.lastRenewalAt;
  const out: Deadline[] = [];
  // The app being away never stops a running job (max duration, budget and idle still
  // do): the unreachable clock runs only while nothing runs, from the later of the last
  // renewal and the end of the last busy time. A job that ended with its outputs not
  // collected waits the collect grace for a Tender to come for them.
  if (!isPhaseRunning) {
    const since = Math.max(renewed, state.lastBusyAt ?? -Infinity);
    const uncollected = state.jobEndedAt != null && state.collectedAt === null;
    if (uncollected) {
      const wait = Math.max(p.graceMs, p.collectGraceMs ?? 0);
      out.push({
        cause: 'uncollected',
        at: since + wait,
        reason: () => `job ended ${formatDuration(wait)} ago and no Tender collected its outputs`,
      });
    } else {
      out.push({
        cause: 'unreachable',
        at: since + p.graceMs,
        reason: (now) => `app unreachable for ${formatDuration(now - renewed)}`,
      });
    }
  }
  if (p.maxDurationMs != null) {
    out.push({
      cause: 'max_duration',
      at: renewed + p.maxDurationMs,
      reason: () => 'max duration reached',
    });
  }
  if (p.budgetMs != null) {
    out.push({ cause: 'budget', at: renewed + p.budgetMs, reason: () => 'budget reached' });
  }
  if (p.afterJob === 'destroy' && state.collectedAt !== null) {
    out.push({
      cause: 'job_done',
      at: state.collectedAt + Math.min(p.graceMs, JOB_DONE_MAX_WAIT_MS),
      reason: () => 'job finished and outputs collected',
    });
  }
  if (p.idleTimeoutMs != null && !isPhaseRunning) {
    const since = Math.max(state.armedAt, state.lastBusyAt ?? -Infinity);
    out.push({
      cause: 'idle',
      at: since + p.idleTimeoutMs,
      reason: (now) => `idle for ${formatDuration(now - since)} with no job running`,
    });
  }
  // Opt-in (off unless the policy sets a threshold): a job whose GPUs sit idle is as idle
  // as no job. Counted from arming at the earliest; an app that is attached (`inUse`) does
  // not hold it off — a hung job idles its GPUs whether or not anyone watches.
  const below = p.idleGpuUtilBelow;
  if (p.idleTimeoutMs != null && below != null && isPhaseRunning && gpuIdleSince !== null) {
    const since = Math.max(state.armedAt, gpuIdleSince);
    out.push({
      cause: 'idle',
      at: since + p.idleTimeoutMs,
      reason: (now) =>
        `GPU-idle: every GPU below ${below}% for ${formatDuration(now - since)} while the job ran`,
    });
  }
  return out;
}

/** The first of the earliest, so ties go to the order above. */
function earliest(list: Deadline[]): Deadline | undefined {
  return list.reduce<Deadline | undefined>((a, d) => (a && a.at <= d.at ? a : d), undefined);
}

/** "0.7 s", "42 s", "35 min", "6h", "6h 30 min". */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h}h` : `${h}h ${m} min`;
}
