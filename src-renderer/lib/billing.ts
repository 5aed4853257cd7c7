import {
  burnRate,
  currentRate,
  isLiveLease,
  leaseCost,
  type LeaseView,
} from '../../src-main/contract';
import { CHEAPEST, isMarketplace } from './marketplaces';

/** A lease that may bill: requested (maybe created at the provider), created, destroying. */
export const isLive: (l: LeaseView) => boolean = isLiveLease;

/** Dollars per hour of every live lease with a known price. */
export { burnRate };

/** What a lease has cost so far: from creation to its confirmed destroy (or now). */
export function accrued(l: LeaseView, now: number): number {
  return leaseCost(l, now);
}

export function totalAccrued(leases: readonly LeaseView[], now: number): number {
  return leases.reduce((sum, l) => sum + accrued(l, now), 0);
}

/** Leases that need a person: could not be destroyed, or lost track of. */
export function needsAttention(l: LeaseView): boolean {
  return (l.state === 'destroying' && l.lastError !== null) || l.state === 'lost';
}

/** A live lease that cannot bill: its provider never charges (a local folder, a host of
 *  yours, a cluster without a notional price) and it has no rate. A marketplace lease with
 *  no price yet (requested) may bill. */
export function isFreeLease(l: Pick<LeaseView, 'provider' | 'pricePerHour' | 'rates'>): boolean {
  const rate = currentRate(l);
  if (rate !== null && rate > 0) return false;
  return !l.provider.split(',').some((p) => isMarketplace(p) || p === CHEAPEST);
}

/** The live leases, split into those that may bill and those that are free. */
export function liveCounts(leases: readonly LeaseView[]): { billing: number; free: number } {
  const live = leases.filter(isLive);
  const free = live.filter(isFreeLease).length;
  return { billing: live.length - free, free };
}

/** The top bar's words: what bills, and what is live but free ("nothing billing · 1 free
 *  node live"). */
export function billingText(counts: { billing: number; free: number }): string {
  const { billing, free } = counts;
  const bills =
    billing === 0 ? 'nothing billing' : `${billing} lease${billing === 1 ? '' : 's'} billing`;
  return free === 0 ? bills : `${bills} · ${free} free node${free === 1 ? '' : 's'} live`;
}
