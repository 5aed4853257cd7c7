// The commands that read what a run's jobs said: their log records (stored, fetched from the
// agents, searched) and their metrics. Part of the one command table in commands.ts.
import { z } from 'zod';
import { LogBackfill } from './log-backfill';
import { MetricSeries } from './metrics';
import { LogChannel, LogRecord } from './log-record';

/** `nodeName` below: the node's name in its run (`node-0`); its key (`r-…/node-0`) is taken
 *  too. Absent: every node of the run. */
export const logCommands = {
  'logs.read': {
    input: z.object({
      runId: z.string(),
      nodeName: z.string().optional(),
      channel: LogChannel.optional(),
      fromSeq: z.number().int().min(1).default(1),
      limit: z.number().int().min(1).max(100_000).default(10_000),
      /** Instead of from `fromSeq`: from the `tail`-th last record of each channel read (a
       *  pane opening a long log wants its end, not a million lines). */
      tail: z.number().int().min(1).max(1_000_000).optional(),
      /** A sweep's cell (`j03`): its node's agent records between the cell's seqs. */
      cellId: z.string().optional(),
    }),
    output: z.object({ records: z.array(LogRecord) }),
  },
  /** Fetches from each reachable node's agent the log records the datastream lacks (a
   *  detached or unattended run), same seqs: no gap, no duplicate. The writer stores them
   *  (and they go out as `log.lines`, as stored records do); a read-only process only sends
   *  them as `log.lines`. `tail`: a read-only process fetches at most the last `tail`. */
  'logs.backfill': {
    input: z.object({
      runId: z.string(),
      nodeName: z.string().optional(),
      tail: z.number().int().min(1).max(1_000_000).optional(),
    }),
    output: z.object({ nodes: z.array(LogBackfill) }),
  },
  /** Lines of a run's stored log matching `query` (case-insensitive substring): the whole
   *  log on disk, not just what a terminal keeps in its scrollback. */
  'logs.search': {
    input: z.object({
      runId: z.string(),
      nodeName: z.string().optional(),
      query: z.string().min(1).max(1_000),
      limit: z.number().int().min(1).max(10_000).default(500),
    }),
    output: z.object({ records: z.array(LogRecord), truncated: z.boolean() }),
  },
  /** A run's metrics as series (contract/metrics.ts): the lines its jobs appended to
   *  `$TENDER_METRICS`, as the datastream holds them. `nodeName` (as above) and `cellId` (a
   *  sweep cell, `j03`) narrow it; `fromSeq` reads each node's agent records from that seq
   *  on, and `lastSeq` is the highest seq read (of one node: poll it with
   *  `fromSeq: lastSeq + 1`). */
  'run.metrics': {
    input: z.object({
      runId: z.string(),
      nodeName: z.string().optional(),
      cellId: z.string().optional(),
      fromSeq: z.number().int().min(1).default(1),
    }),
    output: z.object({
      series: z.array(MetricSeries),
      /** Lines that were no JSON object. */
      skipped: z.number().int(),
      lastSeq: z.number().int(),
    }),
  },
} as const;
