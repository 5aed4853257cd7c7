import type { JobDraft } from './draft';
import { dstackDuration } from './dstack-duration';
import type { Outcomes } from './key-outcomes';
import { isDict } from './values';

/**
 * `utilization_policy: {min_gpu_utilization, time_window}` → `[policy] gpu_idle` with
 * `then = "stop"` (dstack terminates the run). A caveat, never silent: dstack stops when
 * any one GPU stays below the threshold for the window, Tender's rule when every GPU does.
 */
export function dstackUtilization(value: unknown, at: string, draft: JobDraft, out: Outcomes) {
  const spec = isDict(value) ? value : null;
  const pct = Number(spec?.min_gpu_utilization);
  const window = spec ? dstackDuration(spec.time_window) : undefined;
  const fix = 'write utilization_policy: {min_gpu_utilization: 10, time_window: 30m}';
  if (!spec || !Number.isFinite(pct) || pct < 0 || pct > 100)
    return out.refused(at, 'min_gpu_utilization must be a percentage from 0 to 100', fix);
  if (window === undefined || window === 'none')
    return out.refused(at, `time_window ${String(spec.time_window)} is not a duration`, fix);
  // Below 0% never holds: the policy never terminates anything under dstack either.
  if (pct === 0) return out.warned(at, 'min_gpu_utilization 0 never fires; left out');
  draft.policy.gpu_idle = { below: pct, for: window, then: 'stop' };
  out.warned(
    at,
    'dstack stops the run when any one GPU stays below it; Tender when every GPU of a node does (the node enforces it, attached or not)',
    `policy.gpu_idle = { below = ${pct}, for = "${window}", then = "stop" }`,
  );
}
