// `tender status`: every run and lease this install knows, and the labelled instances it
// does not.
import { z } from 'zod';
import { RunView } from './run-view';
import { LeaseView } from './lease-view';

/** An instance carrying Tender's label prefix that the ledger does not know. */
export const OrphanView = z.object({
  provider: z.string(),
  leaseId: z.string(),
  label: z.string(),
});
export type OrphanView = z.infer<typeof OrphanView>;

export const StatusView = z.object({
  runs: z.array(RunView),
  leases: z.array(LeaseView),
  orphans: z.array(OrphanView),
  /** Providers that could not be asked for their labelled leases, with why. */
  unreachable: z.array(z.object({ provider: z.string(), error: z.string() })),
});
export type StatusView = z.infer<typeof StatusView>;
