import { noticeFor, type Notice, type RunView } from '../../src-main/contract';

/** What the page last saw of a run: enough to tell a change from a repeat. */
export interface SeenRun {
  status: RunView['status'];
  budgetWarning: boolean;
}

export const seenOf = (r: RunView): SeenRun => ({
  status: r.status,
  budgetWarning: r.cost.budgetWarning,
});

const isOver = (s: RunView['status']) => s === 'completed' || s === 'failed' || s === 'cancelled';

/**
 * The browser's notice for a change this page saw happen: a run it saw unfinished has
 * ended, or crossed its budget warning. Never a run first seen already over (old news on
 * page load). The same words as the app's and the webhook's (contract/notice.ts), without
 * the reason: a browser notification may show on a locked screen, and the page has no
 * secrets to scrub a reason with. Pure.
 */
export function browserNotice(prev: SeenRun | undefined, next: RunView): Notice | null {
  if (!prev || isOver(prev.status)) return null;
  const base = { runId: next.id, jobName: next.jobName, costUsd: next.cost.accruedUsd };
  if (next.status === 'completed' || next.status === 'failed' || next.status === 'cancelled')
    return noticeFor({ kind: 'run.ended', ...base, status: next.status, reason: null });
  if (next.cost.budgetWarning && !prev.budgetWarning && next.cost.budgetUsd !== null)
    return noticeFor({ kind: 'budget.warning', ...base, budgetUsd: next.cost.budgetUsd });
  return null;
}

/** Nobody looks at the page: its tab is hidden or its window lacks the focus. */
export function isUnwatched(doc: Pick<Document, 'hidden' | 'hasFocus'>): boolean {
  return doc.hidden || !doc.hasFocus();
}
