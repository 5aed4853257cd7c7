import type { LeaseView, NoticeEvent, RunView } from '../../contract';

/** A run that ended longer ago than this is old news: a ledger first opened by this version,
 *  or a webhook set today, does not replay yesterday's runs. */
export const STALE_AFTER_MS = 12 * 3_600_000;

/** What a run's view says is worth telling: its end, or (while it runs) a budget warning.
 *  `redact` scrubs the free text (job name, reason) of secret values. Pure. */
export function runNoticeEvent(
  run: RunView,
  now: number,
  redact: (text: string) => string,
): NoticeEvent | null {
  const base = { runId: run.id, jobName: redact(run.jobName), costUsd: run.cost.accruedUsd };
  switch (run.status) {
    case 'completed':
    case 'failed':
    case 'cancelled':
      if (now - (run.endedAt ?? now) > STALE_AFTER_MS) return null;
      return {
        kind: 'run.ended',
        ...base,
        status: run.status,
        reason: run.failedReason === null ? null : redact(run.failedReason),
      };
    case 'pending':
    case 'running':
      if (!run.cost.budgetWarning || run.cost.budgetUsd === null) return null;
      return { kind: 'budget.warning', ...base, budgetUsd: run.cost.budgetUsd };
  }
}

/** A lease the provider lists as outbid (the reconciler marks it within one pass). */
export function isOutbid(lease: LeaseView): boolean {
  return lease.interruption === 'outbid';
}

/** The GPU idle rule's `notify` firings a run's nodes show (the journal's latest per node),
 *  each worth telling once; `stop` and `teardown` end the run, which is told as its end. */
export function gpuIdleNoticeEvents(
  run: RunView,
  now: number,
  redact: (text: string) => string,
): NoticeEvent[] {
  return run.nodes.flatMap((n) => {
    const f = n.gpuIdleFired;
    if (!f || f.did !== 'notified' || now - f.at > STALE_AFTER_MS) return [];
    return [
      {
        kind: 'gpu.idle' as const,
        runId: run.id,
        jobName: redact(run.jobName),
        nodeName: n.logicalId,
        at: f.at,
        reason: redact(f.reason),
        costUsd: run.cost.accruedUsd,
      },
    ];
  });
}
