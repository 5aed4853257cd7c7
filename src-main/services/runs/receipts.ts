// A run's receipts, as the jobs wrote them (jobs/receipt-writer.ts): read back and checked.
import { existsSync, readFileSync } from 'node:fs';
import { nodeOutputsDir } from '../../base/paths';
import { TenderError } from '../../base/tender-error';
import { Receipt } from '../../contract';
import { receiptFile } from '../../jobs/receipt-writer';
import type { Ledger } from '../../ledger/ledger';

export function readReceipts(
  d: { home: string; ledger: Pick<Ledger, 'getRun' | 'nodesOfRun'> },
  runId: string,
  nodeId?: string,
): Receipt[] {
  if (!d.ledger.getRun(runId))
    throw new TenderError('not_found', `no run ${runId}`, '`tender status` lists the runs');
  const logical = [...new Set(d.ledger.nodesOfRun(runId).map((n) => n.logicalId))].filter(
    (l) => nodeId === undefined || l === nodeId || `${runId}/${l}` === nodeId,
  );
  const out: Receipt[] = [];
  for (const l of logical) {
    const file = receiptFile(nodeOutputsDir(d.home, runId, l));
    if (!existsSync(file)) continue;
    const parsed = Receipt.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success)
      throw new TenderError('infrastructure', `${file} is not a receipt Tender can read`);
    out.push(parsed.data);
  }
  return out;
}
