import type { JobDraft } from './draft';
import type { Outcomes } from './key-outcomes';
import { intOf, isDict } from './values';

/** Restarts when SkyPilot gives no limit for preemptions (it has none); Tender counts every
 *  restart against one number. */
const DEFAULT_RESTARTS = 3;

/**
 * `job_recovery` (managed jobs): `none`, a strategy (`FAILOVER`, `EAGER_NEXT_REGION`), or
 * `{strategy, max_restarts_on_errors, recover_on_exit_codes}` → `[recovery]`: a new attempt on
 * a new node when the node is lost or preempted, or on the listed exit codes.
 */
export function skypilotRecovery(value: unknown, at: string, draft: JobDraft, out: Outcomes): void {
  const spec = isDict(value) ? value : { strategy: value };
  const strategy = spec.strategy === undefined ? 'FAILOVER' : String(spec.strategy);
  if (strategy.toLowerCase() === 'none' || spec.strategy === null) {
    out.mapped(at, 'no [recovery] (Tender does not restart by default)');
    return;
  }
  const onErrors = intOf(spec.max_restarts_on_errors) ?? 0;
  const codes = Array.isArray(spec.recover_on_exit_codes)
    ? spec.recover_on_exit_codes
    : spec.recover_on_exit_codes === undefined
      ? []
      : [spec.recover_on_exit_codes];
  const on = ['node_lost', 'preempted', ...codes.map((c) => `exit_code:${String(c)}`)];
  const max = Math.min(100, Math.max(DEFAULT_RESTARTS, onErrors));
  draft.recovery = { max_restarts: max, on };
  const why = [
    `SkyPilot recovers from preemptions without a limit; Tender counts every restart against max_restarts = ${max}`,
    'job_recovery applies to sky jobs launch; Tender applies it to this run',
  ];
  if (onErrors > 0 && codes.length === 0)
    why.push('Tender restarts on listed exit codes only: add "exit_code:N" to [recovery] on');
  if (strategy.toUpperCase() === 'EAGER_NEXT_REGION')
    why.push('the new node is rented wherever the pool finds one');
  out.warned(
    at,
    why.join('; '),
    `[recovery] max_restarts = ${max}, on = [${on.map((o) => `"${o}"`).join(', ')}]`,
  );
  for (const k of Object.keys(spec))
    if (!['strategy', 'max_restarts_on_errors', 'recover_on_exit_codes'].includes(k))
      out.warned(`${at}.${k}`, 'not a job_recovery key Tender knows; left out');
}
