import type { JobEvent, JobState } from '../fsm/job-fsm';
import type { CellServer } from './cell-server';

export type CellAbandonment = Parameters<CellServer['abandon']>[0];

/** The run phase of a sweep node ended under a running cell (a stop, a lost node, a
 *  fault): how the cell is settled, before the commands that follow. Null: the node goes
 *  on serving (still in the same attempt's run phase), or the event ends no cell. */
export function cellAbandonment(
  event: JobEvent,
  prev: JobState,
  next: JobState,
): CellAbandonment | null {
  if (prev.phase !== 'run') return null;
  if (next.phase === 'run' && next.attempt === prev.attempt) return null;
  switch (event.type) {
    case 'OperatorStop':
      return { cause: 'stopped', ...(event.reason ? { reason: event.reason } : {}) };
    case 'NodeLost':
      return { cause: event.cause ?? 'node_lost', reason: event.reason };
    case 'NodeFault':
      return { cause: 'fault', reason: event.reason };
    default:
      return null;
  }
}
