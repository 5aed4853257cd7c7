import { cellOutputsDir } from '../../base/paths';
import type { CellView } from '../../contract';
import type { CellRow } from '../../ledger/cells';

/** A cell as the views show it. */
export function cellView(home: string, c: CellRow): CellView {
  return {
    runId: c.runId,
    id: c.id,
    index: c.index,
    values: c.values,
    status: c.status,
    node: c.nodeId ? c.nodeId.slice(c.nodeId.indexOf('/') + 1) : null,
    tries: c.tries,
    exitCode: c.exitCode,
    reason: c.reason,
    startedAt: c.startedAt,
    endedAt: c.endedAt,
    seq: c.seqFrom !== null ? [c.seqFrom, c.seqTo] : null,
    // The ledger keeps a hit as `{ runId, jobId }` (cache_hit_json); its jobId is a cell's id.
    cacheHit: c.cacheHit && { runId: c.cacheHit.runId, cellId: c.cacheHit.jobId },
    outputsDir: cellOutputsDir(home, c.runId, c.id),
  };
}
