// The commands about what is rented: a marketplace's offers, the leases and their nodes
// (set up, bid on, destroyed), and what they have cost. Part of the one command table in
// commands.ts.
import { z } from 'zod';
import { CostReport, CostSeries } from './cost-report';
import { DestroyAllReport, LeaseView } from './lease-view';
import { NodeView } from './node-view';
import { ImageInfo } from './images';
import { Offer, OfferFilter } from './offer';

export const leaseCommands = {
  'node.destroy': { input: z.object({ nodeId: z.string() }), output: NodeView },
  /** Appends a command to a live node's host-setup FIFO (docs/host-setup.md); `target` is
   *  a lease id, a lease label or a node id. With `wait`, answers once the entry has run,
   *  with its exit and its log section. */
  'node.setup': {
    input: z.object({
      target: z.string().min(1),
      script: z.string().min(1),
      name: z.string().min(1).optional(),
      /** Re-probe the node's capabilities (GPUs) after it: a driver install. */
      refreshCapabilities: z.boolean().default(false),
      wait: z.boolean().default(false),
    }),
    output: z.object({
      nodeId: z.string(),
      leaseId: z.string().nullable(),
      /** The entry's place in the FIFO (`host_setup[id]`). */
      id: z.number().int(),
      /** Unfinished entries ahead of it when it was appended. */
      position: z.number().int(),
      state: z.enum(['pending', 'running', 'exited']),
      code: z.number().nullable(),
      signal: z.string().nullable(),
      /** Its log section (waited for only; empty otherwise). */
      lines: z.array(z.object({ stream: z.enum(['stdout', 'stderr', 'info']), line: z.string() })),
    }),
  },
  /** Destroys every live lease (and, with `orphans`, every orphan) in parallel and waits for
   *  the provider to confirm each is gone. */
  'lease.destroyAll': {
    input: z
      .object({
        /** Every live lease in the ledger. */
        leases: z.boolean().default(true),
        /** Every lease carrying Tender's label that the ledger does not hold. */
        orphans: z.boolean().default(true),
      })
      .prefault({}),
    output: DestroyAllReport,
  },
  /** Destroys the live leases of one run (a run id) or one lease (its id or label), and
   *  waits for the provider to confirm each is gone; jobs driven here stop for good, and a
   *  run left with no live node and no driver is closed. */
  'lease.destroy': { input: z.object({ target: z.string().min(1) }), output: DestroyAllReport },
  'lease.list': { input: z.object({}).default({}), output: z.array(LeaseView) },
  /** Raises (or lowers) the bid of an interruptible lease (`leaseId`: its id or label), in $/h
   *  for the machine without storage. Refused above the on-demand price and below the bid
   *  that would run it now; an outbid lease runs again once the provider lists it running. */
  'lease.bid': {
    input: z.object({ leaseId: z.string().min(1), bid: z.number().positive() }),
    output: LeaseView,
  },
  /** A marketplace's offers, cheapest all-in price first (hosts that failed to boot for
   *  this user are left out unless asked for). */
  'offers.search': {
    input: z.object({ provider: z.string().default('vastai'), filter: OfferFilter.prefault({}) }),
    output: z.array(Offer),
  },
  /** One table across marketplaces: the ones named, or every configured one; merged
   *  cheapest first, with what each provider answered (an error never hides the others). */
  'offers.searchAll': {
    input: z.object({
      providers: z.array(z.string().min(1)).optional(),
      filter: OfferFilter.prefault({}),
    }),
    output: z.object({
      offers: z.array(Offer),
      sources: z.array(
        z.object({
          provider: z.string(),
          count: z.number().int().nonnegative(),
          error: z.object({ message: z.string(), hint: z.string().nullable() }).nullable(),
        }),
      ),
    }),
  },
  /** What an image's registry tells before anything is rented for it: its size, platforms
   *  and user, and why it could not run a node (never a guessed size). */
  'images.inspect': {
    input: z.object({ image: z.string().min(1).max(1024) }),
    output: ImageInfo,
  },
  /** Everything billed since `sinceMs` ago (default 7 days): per lease, per run, per day. */
  'cost.report': {
    input: z
      .object({
        sinceMs: z
          .number()
          .int()
          .positive()
          .default(7 * 86_400_000),
      })
      .prefault({}),
    output: CostReport,
  },
  /** A run's accrued cost at `points` moments from its start to now (or its end). */
  'cost.series': {
    input: z.object({ runId: z.string(), points: z.number().int().min(2).max(500).default(60) }),
    output: CostSeries,
  },
} as const;
