// What leases cost: $/h from the provider at creation × billed time, from creation to the
// confirmed destroy (a lease still live bills until now). Failed boot attempts are leases
// too and count. Pure: the ledger's rows in, dollars out.

/** The part of a lease row cost needs. */
export interface BilledLease {
  label: string;
  runId: string | null;
  provider: string;
  pricePerHour: number | null;
  createdAt: number | null;
  destroyedAt: number | null;
  /** Live states bill until now even without destroyedAt. */
  state: string;
}

const HOUR_MS = 3_600_000;

/** The billed interval of a lease, [from, to), or null when it never existed. */
export function billedInterval(l: BilledLease, now: number): [number, number] | null {
  if (l.createdAt === null) return null;
  const end = l.destroyedAt ?? (isBilling(l) ? now : l.createdAt);
  return [l.createdAt, Math.max(l.createdAt, end)];
}

/** A lease bills while it exists at the provider (created, being destroyed, or lost track of
 *  with no confirmed destroy). */
export function isBilling(l: BilledLease): boolean {
  return l.destroyedAt === null && (l.state === 'created' || l.state === 'destroying');
}

/** Dollars a lease has cost in [from, to) (default: its whole life up to now). */
export function leaseCost(l: BilledLease, now: number, from = -Infinity, to = Infinity): number {
  const iv = billedInterval(l, now);
  if (!iv || !l.pricePerHour) return 0;
  const a = Math.max(iv[0], from);
  const b = Math.min(iv[1], to);
  return b > a ? (l.pricePerHour * (b - a)) / HOUR_MS : 0;
}

export interface CostSummary {
  accruedUsd: number;
  /** $/h of the leases billing now. */
  burnUsdPerHour: number;
  billing: number;
}

export function summarize(leases: readonly BilledLease[], now: number): CostSummary {
  let accruedUsd = 0;
  let burnUsdPerHour = 0;
  let billing = 0;
  for (const l of leases) {
    accruedUsd += leaseCost(l, now);
    if (isBilling(l)) {
      burnUsdPerHour += l.pricePerHour ?? 0;
      billing += 1;
    }
  }
  return { accruedUsd, burnUsdPerHour, billing };
}

/** When, at the current burn, a run will have spent `budgetUsd` (now if it already has;
 *  null if nothing bills). */
export function budgetDeadline(budgetUsd: number, s: CostSummary, now: number): number | null {
  if (s.accruedUsd >= budgetUsd) return now;
  if (s.burnUsdPerHour <= 0) return null;
  return now + ((budgetUsd - s.accruedUsd) / s.burnUsdPerHour) * HOUR_MS;
}

/** Cost per UTC day (YYYY-MM-DD) of everything billed in [since, now). */
export function costByDay(
  leases: readonly BilledLease[],
  since: number,
  now: number,
): { day: string; usd: number }[] {
  const days: { day: string; usd: number }[] = [];
  const DAY = 86_400_000;
  for (let start = Math.floor(since / DAY) * DAY; start < now; start += DAY) {
    const from = Math.max(start, since);
    const usd = leases.reduce((sum, l) => sum + leaseCost(l, now, from, start + DAY), 0);
    days.push({ day: new Date(start).toISOString().slice(0, 10), usd });
  }
  return days;
}

/** Accrued dollars at `points` evenly spaced times from `from` to `to` (a run's cost chart). */
export function costSeries(
  leases: readonly BilledLease[],
  from: number,
  to: number,
  points: number,
): { at: number; usd: number }[] {
  const n = Math.max(2, points);
  const out: { at: number; usd: number }[] = [];
  for (let i = 0; i < n; i++) {
    const at = from + ((to - from) * i) / (n - 1);
    out.push({ at, usd: leases.reduce((sum, l) => sum + leaseCost(l, to, -Infinity, at), 0) });
  }
  return out;
}
