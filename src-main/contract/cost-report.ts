// What was spent, in dollars ($/h × billed time; billing.ts): across leases and runs, and
// one run's over time.
import { z } from 'zod';
import { LeaseState } from './stages';

/** What was spent: `tender cost` and the UI's cost panel. Dollars are $/h × billed time. */
export const CostReport = z.object({
  since: z.number(),
  now: z.number(),
  totalUsd: z.number(),
  /** $/h of everything billing now. */
  burnUsdPerHour: z.number(),
  billing: z.number(),
  days: z.array(z.object({ day: z.string(), usd: z.number() })),
  runs: z.array(
    z.object({
      runId: z.string(),
      jobName: z.string(),
      usd: z.number(),
      budgetUsd: z.number().nullable(),
      leases: z.number(),
    }),
  ),
  leases: z.array(
    z.object({
      label: z.string(),
      leaseId: z.string().nullable(),
      provider: z.string(),
      runId: z.string().nullable(),
      state: LeaseState,
      pricePerHour: z.number().nullable(),
      from: z.number().nullable(),
      to: z.number().nullable(),
      usd: z.number(),
      reason: z.string().nullable(),
    }),
  ),
});
export type CostReport = z.infer<typeof CostReport>;

/** A run's accrued cost over time (its cost chart). */
export const CostSeries = z.object({
  runId: z.string(),
  budgetUsd: z.number().nullable(),
  points: z.array(z.object({ at: z.number(), usd: z.number() })),
});
export type CostSeries = z.infer<typeof CostSeries>;
