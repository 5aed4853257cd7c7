// A lease as the UI and the CLI see it (what it bills, its dead-man switch, whether it is
// warm or interrupted), and what destroying leases reports.
import { z } from 'zod';
import { LeaseState } from './stages';

/** Why a live lease is not running, as its provider lists it. */
export const LeaseInterruption = z.enum(['outbid', 'stopped', 'exited']);
export type LeaseInterruption = z.infer<typeof LeaseInterruption>;

export const LeaseView = z.object({
  label: z.string(),
  leaseId: z.string().nullable(),
  provider: z.string(),
  runId: z.string().nullable(),
  nodeId: z.string().nullable(),
  state: LeaseState,
  /** $/h at creation. */
  pricePerHour: z.number().nullable(),
  /** Changes of its rate since (billing.ts): a raised bid; storage only while stopped. */
  rates: z.array(z.object({ from: z.number(), perHour: z.number() })).optional(),
  createdAt: z.number().nullable(),
  destroyedAt: z.number().nullable(),
  lastError: z.string().nullable(),
  reason: z.string().nullable(),
  /** Dollars billed so far: each rate × its time, from creation to the confirmed destroy
   *  (or now). */
  accruedUsd: z.number(),
  /** The node's dead-man switch as last renewed (null: not armed). */
  deadMan: z
    .object({
      renewedAt: z.number(),
      graceMs: z.number(),
      /** When the node destroys itself unless renewed or told otherwise. */
      firesAt: z.number(),
    })
    .nullable(),
  /** The runs this lease has served, oldest first (a warm node serves several); empty or
   *  absent: only the run that rented it. */
  servedRuns: z.array(z.string()).optional(),
  /** Kept after its job and free for the next run with the same host key. */
  warm: z
    .object({
      hostKey: z.string(),
      /** When its idle timeout tears it down (null: no idle timeout). */
      idleEndsAt: z.number().nullable(),
    })
    .nullable()
    .optional(),
  /** What the provider last listed the lease doing when it is not running: `outbid` (an
   *  interruptible lease whose bid lost; stopped, disk kept), `stopped`, `exited`. Null or
   *  absent: running, or not known to be otherwise. */
  interruption: LeaseInterruption.nullable().optional(),
  /** An interruptible lease's bid, $/h for the machine without storage (null: on-demand). */
  bid: z.number().nullable().optional(),
  /** The lowest bid that would run it now, as last listed (interruptible leases). */
  minBid: z.number().nullable().optional(),
});
export type LeaseView = z.infer<typeof LeaseView>;

export const DestroyOutcome = z.object({
  label: z.string(),
  leaseId: z.string().nullable(),
  provider: z.string(),
  confirmed: z.boolean(),
  error: z.string().nullable(),
});
export type DestroyOutcome = z.infer<typeof DestroyOutcome>;

export const DestroyAllReport = z.object({
  outcomes: z.array(DestroyOutcome),
  allConfirmed: z.boolean(),
});
export type DestroyAllReport = z.infer<typeof DestroyAllReport>;
