// The records of a run's log as the datastream holds them, where each comes from, and
// which of them are data riding the log rather than lines of it.
import { z } from 'zod';

/** `host_setup`: the node's host-setup FIFO (docs/host-setup.md); `run_setup`: the job's
 *  run_setup, at the start of each run; `gpu`: a GPU sample of the node's agent (one JSON
 *  line, src-agent/wire/gpu-sample.ts); `metrics`: a line the job appended to
 *  `$TENDER_METRICS` (contract/metrics.ts); `gpu_idle`: the GPU idle rule fired
 *  (contract/gpu-idle.ts). The last three are data, never printed as the job's output. */
export const LogSource = z.enum([
  'bootstrap',
  'setup',
  'run',
  'agent',
  'event',
  'host_setup',
  'run_setup',
  'gpu',
  'metrics',
  'gpu_idle',
]);
export type LogSource = z.infer<typeof LogSource>;
/** Whether a record is data riding the log (a GPU sample, a metrics line, a GPU idle
 *  rule's firing — whose words the agent also logs as a line) rather than a line of it:
 *  every printer, tail and search of the log leaves these out. */
export function isDataSource(source: LogSource): boolean {
  return source === 'gpu' || source === 'metrics' || source === 'gpu_idle';
}
export const LogChannel = z.enum(['bootstrap', 'agent', 'events']);
export type LogChannel = z.infer<typeof LogChannel>;

/** One datastream record: log bodies live here and nowhere else. The `agent` channel's
 *  records are the agent's `AgentLogRecord`s (src-agent/wire/protocol-log.ts), same seq. */
export const LogRecord = z.object({
  run: z.string(),
  node: z.string(),
  channel: LogChannel,
  source: LogSource,
  stream: z.enum(['stdout', 'stderr', 'info']),
  seq: z.number().int().positive(),
  ts: z.number(),
  line: z.string(),
});
export type LogRecord = z.infer<typeof LogRecord>;

export const LogBatch = z.object({ records: z.array(LogRecord) });
export type LogBatch = z.infer<typeof LogBatch>;
