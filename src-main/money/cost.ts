// What runs, days and budgets cost, from what each lease costs (contract/billing.ts). Failed
// boot attempts are leases too and count. Pure: the ledger's rows in, dollars out.

import { currentRate, isBilling, leaseCost, type BilledLease } from '../contract/billing';

export { billedInterval, isBilling, leaseCost, type BilledLease } from '../contract/billing';

const HOUR_MS = 3_600_000;

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
      burnUsdPerHour += currentRate(l) ?? 0;
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
