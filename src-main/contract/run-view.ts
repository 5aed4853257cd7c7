// A run as the UI and the CLI see it (its nodes, its sweep, its policy, what it has cost),
// and what `run.plan` says a run would do before it starts.
import { z } from 'zod';
import { SweepEstimate } from './sweep';
import { JobStatus } from './stages';
import { LeasePolicy } from './policy';
import { NodeView } from './node-view';

export const RunId = z.string().regex(/^r-[a-z0-9]{6,16}$/, 'a run id looks like r-k3x9a2mf');

export const RunView = z.object({
  id: z.string(),
  jobName: z.string(),
  /** Where the job came from (a job file's path), when known. */
  source: z.string().nullable().optional(),
  /** Who started it (contract/run-origin.ts): `cli`, `app`, `mcp:<client>`; null for runs
   *  made before origins were kept, or started without one. */
  origin: z.string().nullable().default(null),
  provider: z.string(),
  count: z.number(),
  status: JobStatus,
  /** true while no live process drives the run (the user detached, or Tender crashed). */
  detached: z.boolean(),
  createdAt: z.number(),
  endedAt: z.number().nullable(),
  failedReason: z.string().nullable(),
  outputsDir: z.string(),
  nodes: z.array(NodeView),
  /** A distributed run (docs/distributed.md): node-N is rank N. */
  distributed: z.boolean().default(false),
  /** A sweep's cells by status (`run.cells` lists them); null for a run that is no sweep. */
  sweep: z
    .object({
      total: z.number(),
      queued: z.number(),
      running: z.number(),
      completed: z.number(),
      failed: z.number(),
      cancelled: z.number(),
    })
    .nullable()
    .default(null),
  /** null for runs made before policies existed. */
  policy: LeasePolicy.nullable(),
  cost: z.object({
    /** Every lease of the run, failed boot attempts included. */
    accruedUsd: z.number(),
    burnUsdPerHour: z.number(),
    budgetUsd: z.number().nullable(),
    /** accrued / budget (null without a budget). */
    budgetFraction: z.number().nullable(),
    /** 80% of the budget was reached. */
    budgetWarning: z.boolean(),
  }),
});
export type RunView = z.infer<typeof RunView>;

/** What `run.plan` says a run would do, node by node. */
export const RunPlan = z.object({
  hostKey: z.string(),
  nodes: z.array(
    z.object({
      logicalId: z.string(),
      /** The warm node it would claim; null: a new lease. */
      warm: z
        .object({
          leaseId: z.string(),
          fromRun: z.string(),
          pricePerHour: z.number().nullable(),
          idleEndsAt: z.number().nullable(),
          /** The run before had the same setup and setup_fingerprint and its setup
           *  succeeded: the environment is reused unless those files changed. */
          setupCached: z.boolean(),
        })
        .nullable(),
    }),
  ),
  /** Why warm nodes of this provider would not be taken. */
  passedOver: z.array(z.string()),
  /** A sweep: its cells over its nodes, and what it is expected to take. */
  sweep: SweepEstimate.nullable().default(null),
});
export type RunPlan = z.infer<typeof RunPlan>;
