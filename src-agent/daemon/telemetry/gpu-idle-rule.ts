// The GPU idle rule's decision (docs/agent-protocol.md, "The GPU idle rule"). Pure: the
// daemon's gpu-idle-watch.ts passes in the monotonic time, whether the job's run phase
// runs, and since when every GPU has read below the rule's threshold.
import type { GpuIdleRule } from '../../wire/gpu-idle';

export interface GpuIdleFacts {
  rule: GpuIdleRule | undefined;
  /** The job's run phase runs (setup and host setup idle the GPUs by nature: never judged). */
  isRunPhaseRunning: boolean;
  /** Since when (monotonic ms) every GPU has read below `rule.belowPct`; null: the latest
   *  sample had one at or above it, or none could be read (missing data is never idle). */
  idleSince: number | null;
  /** The `idleSince` of the stretch the rule already acted on; null: none. One stretch of
   *  idleness fires once; the GPUs must get busy again before it can fire again. */
  firedFor: number | null;
  now: number;
}

export type GpuIdleDecision =
  | { kind: 'off' }
  /** Not yet: `inMs` until it would fire if nothing changes; null: nothing counts now. */
  | { kind: 'wait'; inMs: number | null }
  | { kind: 'fire'; since: number; idleForMs: number };

export function decideGpuIdle(f: GpuIdleFacts): GpuIdleDecision {
  if (!f.rule) return { kind: 'off' };
  if (!f.isRunPhaseRunning || f.idleSince === null) return { kind: 'wait', inMs: null };
  if (f.firedFor === f.idleSince) return { kind: 'wait', inMs: null };
  const idleForMs = f.now - f.idleSince;
  if (idleForMs >= f.rule.forMs) return { kind: 'fire', since: f.idleSince, idleForMs };
  return { kind: 'wait', inMs: f.rule.forMs - idleForMs };
}

/** "stop after 30m under 10%": the rule in a person's words. */
export function ruleWords(rule: GpuIdleRule): string {
  return `${rule.then} after ${shortDuration(rule.forMs)} under ${rule.belowPct}%`;
}

/** "30m", "1h30m", "45s", "1.5s". The app's formatDuration (src-main/contract/policy-duration.ts)
 *  gives the same text for whole seconds and from a minute up; below a minute this one keeps
 *  tenths ("1.5s" where the app rounds to "2s", "0.5s" where it says "500ms"). Kept apart on
 *  purpose: the agent imports no app code, and the contract nothing of the agent. */
export function shortDuration(ms: number): string {
  if (ms < 60_000 && ms % 1_000 !== 0) return `${Math.round(ms / 100) / 10}s`;
  let rest = Math.round(ms / 1_000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('') || '0s';
}
