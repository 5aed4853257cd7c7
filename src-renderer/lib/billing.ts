import type { LeaseView } from '../../src-main/contract';
import { LIVE_LEASE_STATES } from '../../src-main/contract/stages';

/** A lease that may bill: requested (maybe created at the provider), created, destroying. */
export function isLive(l: LeaseView): boolean {
  return LIVE_LEASE_STATES.includes(l.state);
}

/** Dollars per hour of every live lease with a known price. */
export function burnRate(leases: readonly LeaseView[]): number {
  return leases.filter(isLive).reduce((sum, l) => sum + (l.pricePerHour ?? 0), 0);
}

/** What a lease has cost so far: from creation to its confirmed destroy (or now). */
export function accrued(l: LeaseView, now: number): number {
  if (l.pricePerHour === null || l.createdAt === null) return 0;
  const end = l.destroyedAt ?? (isLive(l) ? now : l.createdAt);
  return (Math.max(0, end - l.createdAt) / 3_600_000) * l.pricePerHour;
}

export function totalAccrued(leases: readonly LeaseView[], now: number): number {
  return leases.reduce((sum, l) => sum + accrued(l, now), 0);
}

/** Leases that need a person: could not be destroyed, or lost track of. */
export function needsAttention(l: LeaseView): boolean {
  return (l.state === 'destroying' && l.lastError !== null) || l.state === 'lost';
}
