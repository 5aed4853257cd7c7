import { z } from 'zod';
import { GpuIdleRule } from './gpu-idle';

/** What happens to a run's nodes once the job has ended and its outputs were collected. */
export const AfterJob = z.enum(['destroy', 'keep_warm']);
export type AfterJob = z.infer<typeof AfterJob>;

/**
 * A run's lease policy, every field resolved. Each node enforces it by itself
 * (the agent's dead-man switch) and the app enforces it too, so neither a crashed laptop nor
 * a lost network leaves a machine billing. Durations are milliseconds; null means "none".
 */
export const LeasePolicy = z
  .object({
    /** Hard limit on a lease's life, from its creation. */
    maxDurationMs: z.number().int().positive().nullable(),
    /** With no job running and nobody using the node for this long, it is destroyed. */
    idleTimeoutMs: z.number().int().positive().nullable(),
    /** Dollars for the whole run: every lease of it, failed boot attempts included. */
    budgetUsd: z.number().positive().nullable(),
    /** `destroy` once outputs are collected, or `keep_warm` until idle_timeout. */
    afterJob: AfterJob,
    /** How long a node with no job running waits for the app (renewals over the agent
     *  link) before it destroys itself: covers a closed laptop, a crash, a lost network. A
     *  running job is never stopped because the app is away. */
    unreachableGraceMs: z
      .number()
      .int()
      .min(1_000)
      .max(7 * 24 * 3_600_000),
    /** After a job ended with nobody attached: how long its node keeps the outputs waiting
     *  for a Tender to collect them before its switch fires (at least the unreachable
     *  grace). On machines you own the outputs then stay on the host; elsewhere the node
     *  is destroyed. Absent in runs made before it existed: the unreachable grace. */
    collectGraceMs: z
      .number()
      .int()
      .min(1_000)
      .max(7 * 24 * 3_600_000)
      .optional(),
    /** With `idleTimeoutMs`: a node whose job's GPUs all sat below this utilisation
     *  (percent) for the idle timeout counts as idle too, job running or not. Absent: off
     *  (the default) — a running job is then never idle. */
    idleGpuUtilBelow: z.number().gt(0).max(100).optional(),
    /** `[policy] gpu_idle`: what each node's agent does when the job leaves every GPU
     *  idle for a while (contract/gpu-idle.ts). Absent: no rule (the default). */
    gpuIdle: GpuIdleRule.optional(),
  })
  .strict();
export type LeasePolicy = z.infer<typeof LeasePolicy>;

/** What a run asks for; the rest comes from the defaults in Settings. */
export const PolicyInput = LeasePolicy.partial();
export type PolicyInput = z.infer<typeof PolicyInput>;

export { formatDuration, parseDuration } from './policy-duration';
