// A run's receipts, as the jobs wrote them (jobs/run/receipt-writer.ts): read back and checked.
import { existsSync, readFileSync } from 'node:fs';
import { cellOutputsDir, nodeOutputsDir } from '../../base/paths';
import { TenderError } from '../../base/tender-error';
import { Receipt, sameCell } from '../../contract';
import { receiptFile } from '../../jobs/run/receipt-writer';
import type { Ledger } from '../../ledger/ledger';

export function readReceipts(
  d: { home: string; ledger: Pick<Ledger, 'getRun' | 'nodesOfRun' | 'listCells'> },
  runId: string,
  filter: { nodeName?: string; cellId?: string } = {},
): Receipt[] {
  if (!d.ledger.getRun(runId))
    throw new TenderError('not_found', `no run ${runId}`, '`tender status` lists the runs');
  const isNode = (l: string) =>
    filter.nodeName === undefined || l === filter.nodeName || `${runId}/${l}` === filter.nodeName;
  const cells = d.ledger.listCells(runId);
  if (cells.length > 0) {
    const picked = cells.filter(
      (c) =>
        (filter.cellId === undefined || sameCell(runId, c.id, c.index, filter.cellId)) &&
        (filter.nodeName === undefined ||
          (c.nodeId !== null && isNode(c.nodeId.split('/').pop()!))),
    );
    if (filter.cellId !== undefined && picked.length === 0)
      throw new TenderError(
        'not_found',
        `run ${runId} has no cell ${filter.cellId}`,
        `its cells are ${cells[0]!.id}…${cells[cells.length - 1]!.id} (\`tender status ${runId}\` lists them)`,
      );
    return picked.flatMap((c) => readOne(receiptFile(cellOutputsDir(d.home, runId, c.id))));
  }
  if (filter.cellId !== undefined)
    throw new TenderError(
      'bad_input',
      `run ${runId} is no sweep: it has no cells`,
      'leave --job out, or use --node',
    );
  const logical = [...new Set(d.ledger.nodesOfRun(runId).map((n) => n.logicalId))].filter(isNode);
  return logical.flatMap((l) => readOne(receiptFile(nodeOutputsDir(d.home, runId, l))));
}

function readOne(file: string): Receipt[] {
  const r = readReceipt(file);
  return r ? [r] : [];
}

/** A receipt file as the jobs wrote it; null when there is none. One that is not a receipt
 *  (not JSON, or not its shape) is an error naming the file. */
export function readReceipt(file: string): Receipt | null {
  if (!existsSync(file)) return null;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    json = undefined;
  }
  const parsed = Receipt.safeParse(json);
  if (!parsed.success)
    throw new TenderError('infrastructure', `${file} is not a receipt Tender can read`);
  return parsed.data;
}
