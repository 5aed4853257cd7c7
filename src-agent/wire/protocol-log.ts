// The agent's log: the records of `D/logs/log.jsonl`, and where each line comes from.
// Part of the agent's protocol (docs/agent-protocol.md), re-exported by protocol.ts; types
// and constants only.
import type { Phase } from './protocol-phase';

/** `host_setup`: an entry of the host-setup FIFO (host-setup.ts); `run_setup`: the job's
 *  run_setup, run at the start of the run phase; `gpu`: a GPU sample (gpu-sample.ts), one
 *  JSON line, never job output; `metrics`: a line the job appended to `$TENDER_METRICS`
 *  (metrics-tailer.ts), data too, never job output; `gpu_idle`: the GPU idle rule fired
 *  (gpu-idle.ts), one JSON line, data. */
export type LogSource =
  Phase | 'agent' | 'host_setup' | 'run_setup' | 'gpu' | 'metrics' | 'gpu_idle';
export type LogStream = 'stdout' | 'stderr' | 'info';

/** One line of `D/logs/log.jsonl`; `seq` is node-wide, from 1, without gaps in normal use.
 *  The app stores each as a contract `LogRecord` on the node's `agent` channel (same seq). */
export interface AgentLogRecord {
  seq: number;
  /** Milliseconds since the epoch, on the node's clock. */
  ts: number;
  src: LogSource;
  stream: LogStream;
  line: string;
}
