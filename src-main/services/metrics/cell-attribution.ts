// Which sweep cell a node's record belongs to: the cell that ran on that node over a seq
// range holding it (a cell put back in the queue keeps only its last start's range; the
// records of the start before are nobody's).
import type { Ledger } from '../../ledger/ledger';
import type { CellOf } from './run-metrics';

export function cellAttribution(
  ledger: Pick<Ledger, 'listCells'>,
  runId: string,
): CellOf | undefined {
  const cells = ledger.listCells(runId).filter((c) => c.nodeId !== null && c.seqFrom !== null);
  if (cells.length === 0) return undefined;
  return (nodeId, seq) =>
    cells.find(
      (c) => c.nodeId === nodeId && seq >= c.seqFrom! && (c.seqTo === null || seq <= c.seqTo),
    )?.id ?? null;
}
