import type { JobDraft } from './draft';
import type { Outcomes } from './key-outcomes';
import { boolOf, isDict } from './values';

/** Restarts for a retry with no count: dstack bounds retries by time, Tender by count. */
const DEFAULT_RESTARTS = 3;

/**
 * `retry: true | false | {on_events: [no-capacity, interruption, error], duration}` →
 * `[recovery]`. `interruption` is a lost or preempted node; `error` (any non-zero exit)
 * Tender cannot match (it restarts on listed exit codes); `no-capacity` is the pool's
 * business (it tries other offers, and other marketplaces when listed).
 */
export function dstackRetry(value: unknown, at: string, draft: JobDraft, out: Outcomes): void {
  const flag = boolOf(value);
  if (flag === false) return out.mapped(at, 'no [recovery] (Tender does not restart by default)');
  const spec = isDict(value) ? value : {};
  if (flag !== true && !isDict(value))
    return out.refused(
      at,
      `retry ${JSON.stringify(value)} is not true, false or a mapping`,
      'write retry: {on_events: [interruption], duration: 1h}',
    );
  const events = Array.isArray(spec.on_events)
    ? spec.on_events.map(String)
    : ['no-capacity', 'interruption', 'error'];
  const why = [
    `dstack retries for a duration; Tender for a count (max_restarts = ${DEFAULT_RESTARTS})`,
  ];
  if (events.includes('error'))
    why.push(
      '"error" is not matched: Tender restarts on listed exit codes only (add "exit_code:N" to [recovery] on)',
    );
  if (events.includes('no-capacity'))
    why.push(
      '"no-capacity": the pool already tries other offers (and other marketplaces when provider lists several)',
    );
  const on = events.includes('interruption') ? ['node_lost', 'preempted'] : [];
  if (on.length === 0) return out.warned(at, why.join('; '));
  draft.recovery = { max_restarts: DEFAULT_RESTARTS, on };
  out.warned(
    at,
    why.join('; '),
    `[recovery] max_restarts = ${DEFAULT_RESTARTS}, on = ["node_lost", "preempted"]`,
  );
  for (const k of Object.keys(spec))
    if (k !== 'on_events' && k !== 'duration')
      out.warned(`${at}.${k}`, 'not a retry key Tender knows; left out');
}
