import { z } from 'zod';

/** What `logs.backfill` did for one node:
 *  - `stored`: the records the datastream lacked were fetched from the agent and stored;
 *  - `sent`: fetched and sent as `log.lines` only (a read-only process never appends to the
 *    writer's files: two processes appending to one file could interleave their lines);
 *  - `complete`: the datastream already held everything the agent has;
 *  - `driven`: a Tender drives the run, and its agent link stores each record as it comes;
 *  - `no_agent`: no joined agent on a live lease (not booted yet, destroyed, released to a
 *    later run) — what the datastream holds is all there is;
 *  - `unreachable`: the node did not answer (`detail` says why); the stored log is shown. */
export const LogBackfillOutcome = z.enum([
  'stored',
  'sent',
  'complete',
  'driven',
  'no_agent',
  'unreachable',
]);
export type LogBackfillOutcome = z.infer<typeof LogBackfillOutcome>;

export const LogBackfill = z.object({
  nodeId: z.string(),
  outcome: LogBackfillOutcome,
  /** Records fetched from the agent (stored or sent). */
  records: z.number().int(),
  /** The agent's last seq when asked; null when it was not asked. */
  agentLastSeq: z.number().int().nullable(),
  detail: z.string().nullable(),
});
export type LogBackfill = z.infer<typeof LogBackfill>;
