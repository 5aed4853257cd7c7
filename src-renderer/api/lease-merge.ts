import type { LeaseView } from '../../src-main/contract';

/** A `lease.changed` event carries the lease's own row, not which runs it served or whether
 *  it is warm (those come with `status.get`): keep what the cache knew, except that a lease
 *  no longer billing, or now held by another run (a claim), is not warm any more. */
export function mergeLease(prev: LeaseView | undefined, next: LeaseView): LeaseView {
  if (!prev) return next;
  const isStillWarm = next.state === 'created' && prev.runId === next.runId;
  return {
    ...next,
    servedRuns: next.servedRuns ?? prev.servedRuns,
    warm: next.warm !== undefined ? next.warm : isStillWarm ? prev.warm : null,
  };
}
