// The composer's GPU idle rule fields (`[policy] gpu_idle`) ↔ the run's rule: the same
// defaults and limits as the job file's (10%, 30m; `for` at least 1s), by field.
import { type GpuIdleRule, formatDuration, parseDuration } from '../../../src-main/contract';
import type { DraftLimits } from '../../store/ui';

export const GPU_IDLE_DEFAULT_BELOW = 10;
export const GPU_IDLE_DEFAULT_FOR = '30m';

export type GpuIdleProblems = Partial<Record<'gpuIdleBelow' | 'gpuIdleFor', string>>;

/** The rule the fields say; null: off (no action chosen). */
export function limitsToGpuIdle(limits: DraftLimits): {
  rule: GpuIdleRule | null;
  problems: GpuIdleProblems;
} {
  const then = limits.gpuIdleThen ?? '';
  if (then === '') return { rule: null, problems: {} };
  const problems: GpuIdleProblems = {};
  const belowText = (limits.gpuIdleBelow ?? '').trim().replace(/%$/, '');
  const below = belowText === '' ? GPU_IDLE_DEFAULT_BELOW : Number(belowText);
  if (!(Number.isFinite(below) && below > 0 && below <= 100))
    problems.gpuIdleBelow = 'A percentage above 0 and at most 100, like 10';
  const forText = (limits.gpuIdleFor ?? '').trim() || GPU_IDLE_DEFAULT_FOR;
  const forMs = parseDuration(forText);
  if (forMs === undefined || forMs === null || forMs < 1_000)
    problems.gpuIdleFor = 'A duration of at least 1s, like 30m';
  if (Object.keys(problems).length > 0) return { rule: null, problems };
  return { rule: { belowPct: below, forMs: forMs!, then }, problems };
}

/** A run's rule → the fields as the composer shows them (none: the fields stay out). */
export function gpuIdleToLimits(rule: GpuIdleRule | undefined): Partial<DraftLimits> {
  if (!rule) return {};
  return {
    gpuIdleThen: rule.then,
    gpuIdleBelow: String(rule.belowPct),
    gpuIdleFor: formatDuration(rule.forMs),
  };
}
