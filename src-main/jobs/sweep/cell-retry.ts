// What becomes of a sweep's cell whose run did not end well: back to the queue (another
// node, or this one, takes it again) or ended. The job's `[recovery]` rules decide, per
// cell: the causes it names, at most `max_restarts` starts more than the first.
import type { CellStatus } from '../../contract';

export interface CellRetryInput {
  /** `node_lost`, `preempted`, `exit_code:N`, or `cancelled` / `stopped` (never retried). */
  cause: string;
  /** Starts so far, this one included. */
  tries: number;
  maxRestarts: number;
  recoverOn: string[];
}

export function cellAfterFailure(i: CellRetryInput): Extract<CellStatus, 'queued' | 'failed'> {
  const isCovered = i.recoverOn.includes(i.cause);
  return isCovered && i.tries <= i.maxRestarts ? 'queued' : 'failed';
}
