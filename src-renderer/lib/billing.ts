import { burnRate, isLiveLease, leaseCost, type LeaseView } from '../../src-main/contract';

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
