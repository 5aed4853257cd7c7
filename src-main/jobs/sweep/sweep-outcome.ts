// A sweep run's outcome, from its cells once every node has stopped serving them:
// completed when every cell completed; cancelled when the user cancelled the rest;
// otherwise failed, saying how many cells failed and the first one's reason.
import type { CellStatus, JobStatus } from '../../contract';

export interface CellOutcomeRow {
  id: string;
  status: CellStatus;
  reason: string | null;
}

export interface SweepOutcome {
  status: JobStatus;
  failedReason: string | null;
}

/** `isCancelled`: the whole sweep was cancelled (one cell cancelled on its own does not
 *  make the run cancelled). */
export function sweepOutcome(cells: CellOutcomeRow[], isCancelled: boolean): SweepOutcome {
  const failed = cells.filter(
    (c) => c.status === 'failed' || c.status === 'queued' || c.status === 'running',
  );
  const cancelled = cells.filter((c) => c.status === 'cancelled');
  if (failed.length > 0) {
    const first = failed[0]!;
    return {
      status: 'failed',
      failedReason: `${failed.length} of ${cells.length} cells failed (${first.id}: ${first.reason ?? 'failed'})`,
    };
  }
  if (cancelled.length === 0) return { status: 'completed', failedReason: null };
  return {
    status: isCancelled || cancelled.length === cells.length ? 'cancelled' : 'completed',
    failedReason: `${cancelled.length} of ${cells.length} cells cancelled`,
  };
}
