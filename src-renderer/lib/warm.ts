import { duration } from './format';

/** A countdown people read at a glance: "40 s", "12 min", "2 h 05 m". */
export function countdown(ms: number): string {
  if (ms < 60_000) return `${Math.max(1, Math.ceil(ms / 1000))} s`;
  if (ms < 120 * 60_000) return `${Math.round(ms / 60_000)} min`;
  return duration(ms);
}

/** When a warm node's idle timeout tears it down: "idle ends in 12 min". */
export function idleEndsText(idleEndsAt: number | null, now: number): string {
  if (idleEndsAt === null) return 'no idle timeout';
  const left = idleEndsAt - now;
  return left <= 0 ? 'idle timeout reached' : `idle ends in ${countdown(left)}`;
}

/** "served: r-a, r-b" for a lease that served more than one run; null otherwise. */
export function servedText(servedRuns: readonly string[] | undefined): string | null {
  return servedRuns && servedRuns.length > 1 ? `served: ${servedRuns.join(', ')}` : null;
}
