// What a lease costs, one definition for the core, the desktop shell and the renderer (which
// may import only the contract): $/h from the provider at creation × billed time, from
// creation to the confirmed destroy (a lease still billing counts until now). Pure.
import { LIVE_LEASE_STATES, type LeaseState } from './stages';

/** From `from` on, the lease bills `perHour` (until the next change). */
export interface RateChange {
  from: number;
  perHour: number;
}

/** The part of a lease row (or LeaseView) cost needs. */
export interface BilledLease {
  pricePerHour: number | null;
  /** Changes of the rate after creation (a raised bid; storage only while stopped). */
  rates?: readonly RateChange[];
  createdAt: number | null;
  destroyedAt: number | null;
  state: LeaseState;
  /** One run's share of a warm lease that served several: billed to that run only in
   *  [servedFrom, servedTo). Absent or null: the whole life. */
  servedFrom?: number | null;
  servedTo?: number | null;
}

const HOUR_MS = 3_600_000;

/** The share of a run's budget at which the app, the CLI and the UI warn. */
export const BUDGET_WARNING = 0.8;

/** A lease that may bill: requested (maybe created at the provider), created, destroying. */
export function isLiveLease(l: Pick<BilledLease, 'state' | 'servedTo'>): boolean {
  return LIVE_LEASE_STATES.includes(l.state) && (l.servedTo ?? null) === null;
}

/** Dollars per hour of every live lease with a known price. */
export function burnRate(
  leases: readonly Pick<BilledLease, 'state' | 'pricePerHour' | 'servedTo'>[],
): number {
  return leases.filter(isLiveLease).reduce((sum, l) => sum + (currentRate(l) ?? 0), 0);
}

/** What the lease bills per hour now: its last rate change, else its price at creation. */
export function currentRate(l: Pick<BilledLease, 'pricePerHour' | 'rates'>): number | null {
  return l.rates?.at(-1)?.perHour ?? l.pricePerHour;
}

/** The rate a lease bills while in `interruption`: its disk only while stopped with it
 *  kept (outbid, stopped), when that rate is known; else it runs at its bid plus storage
 *  (an interruptible lease) or its price at creation. An exited one is billed as running
 *  (never less than it may cost). */
export function rateFor(
  l: Pick<BilledLease, 'pricePerHour'>,
  facts: { interruption: string | null; bid: number | null; storagePerHour: number | null },
): number | null {
  const { interruption, bid, storagePerHour } = facts;
  if ((interruption === 'outbid' || interruption === 'stopped') && storagePerHour !== null)
    return storagePerHour;
  if (bid !== null && storagePerHour !== null) return bid + storagePerHour;
  return l.pricePerHour;
}

/** A lease bills while it exists at the provider: created, or being destroyed, with no
 *  confirmed destroy. */
export function isBilling(l: BilledLease): boolean {
  return (
    l.destroyedAt === null &&
    (l.servedTo ?? null) === null &&
    (l.state === 'created' || l.state === 'destroying')
  );
}

/** The billed interval of a lease, [from, to), or null when it never existed. */
export function billedInterval(l: BilledLease, now: number): [number, number] | null {
  if (l.createdAt === null) return null;
  const live = l.destroyedAt === null && (l.state === 'created' || l.state === 'destroying');
  const end = l.destroyedAt ?? (live ? now : l.createdAt);
  const from = Math.max(l.createdAt, l.servedFrom ?? -Infinity);
  const to = Math.min(end, l.servedTo ?? Infinity);
  return [from, Math.max(from, to)];
}

/** Dollars a lease has cost in [from, to) (default: its whole life up to now). */
export function leaseCost(l: BilledLease, now: number, from = -Infinity, to = Infinity): number {
  const iv = billedInterval(l, now);
  if (!iv) return 0;
  const a = Math.max(iv[0], from);
  const b = Math.min(iv[1], to);
  if (b <= a) return 0;
  // Each rate holds from its change to the next; the price at creation before the first.
  const segments: RateChange[] = [
    { from: -Infinity, perHour: l.pricePerHour ?? 0 },
    ...(l.rates ?? []),
  ];
  let usd = 0;
  for (let i = 0; i < segments.length; i++) {
    const s = Math.max(a, segments[i]!.from);
    const e = Math.min(b, segments[i + 1]?.from ?? Infinity);
    if (e > s) usd += (segments[i]!.perHour * (e - s)) / HOUR_MS;
  }
  return usd;
}
