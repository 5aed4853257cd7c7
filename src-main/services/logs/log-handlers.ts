import { isDataSource, sameCell, type Handlers, type LogRecord } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { Datastream } from '../../datastream/datastream';
import type { Ledger } from '../../ledger/ledger';
import type { BackfillRun } from './agent-backfill';

export interface LogDeps {
  ledger: Pick<Ledger, 'getRun' | 'listCells'>;
  datastream: Pick<Datastream, 'read'>;
  backfill: BackfillRun;
}

/** A run's logs as the datastream holds them: a page from a seq, a tail, a search; and
 *  what the datastream lacks, from the agents (agent-backfill.ts). */
export function logHandlers(
  core: LogDeps,
): Pick<Handlers, 'logs.read' | 'logs.search' | 'logs.backfill'> {
  return {
    'logs.backfill': async ({ runId, nodeName, tail }) => ({
      nodes: await core.backfill(runId, nodeKey(runId, nodeName), tail),
    }),
    'logs.read': async ({ runId, nodeName, channel, fromSeq, limit, tail, cellId }) => {
      if (!core.ledger.getRun(runId)) throw new TenderError('not_found', `no run ${runId}`);
      if (cellId !== undefined)
        return { records: await cellRecords(core, runId, cellId, fromSeq, limit) };
      return {
        records: await core.datastream.read(runId, {
          nodeId: nodeKey(runId, nodeName),
          channel,
          fromSeq,
          limit,
          tail,
        }),
      };
    },
    'logs.search': async ({ runId, nodeName, query, limit }) => {
      if (!core.ledger.getRun(runId)) throw new TenderError('not_found', `no run ${runId}`);
      const node = nodeKey(runId, nodeName);
      const needle = query.toLowerCase();
      const found: LogRecord[] = [];
      for (let from = 1; ;) {
        const page = await core.datastream.read(runId, {
          nodeId: node,
          channel: 'agent',
          fromSeq: from,
          limit: 20_000,
        });
        if (page.length === 0) return { records: found, truncated: false };
        for (const r of page) {
          // GPU samples and metrics ride the agent channel as JSON: no line of the job's.
          if (isDataSource(r.source) || !r.line.toLowerCase().includes(needle)) continue;
          found.push(r);
          if (found.length >= limit) return { records: found, truncated: true };
        }
        if (node === undefined) return { records: found, truncated: false }; // merged reads are one page
        from = page[page.length - 1]!.seq + 1;
      }
    },
  };
}

/** A cell's records: its node's agent channel between the seqs it ran (sweep cells). */
async function cellRecords(
  core: LogDeps,
  runId: string,
  cellId: string,
  fromSeq: number,
  limit: number,
): Promise<LogRecord[]> {
  const cells = core.ledger.listCells(runId);
  const cell = cells.find((c) => sameCell(runId, c.id, c.index, cellId));
  if (!cell)
    throw new TenderError(
      'not_found',
      cells.length === 0
        ? `run ${runId} is no sweep: it has no cells`
        : `run ${runId} has no cell ${cellId}`,
      cells.length === 0 ? 'leave --job out' : `\`tender cells ${runId}\` lists them`,
    );
  if (cell.seqFrom === null || cell.nodeId === null) return [];
  const records = await core.datastream.read(runId, {
    nodeId: cell.nodeId,
    channel: 'agent',
    fromSeq: Math.max(fromSeq, cell.seqFrom),
    limit,
  });
  return cell.seqTo === null ? records : records.filter((r) => r.seq <= cell.seqTo!);
}

/** The key of a run's node named `node-0` is `<run>/node-0`; a key passes through. */
function nodeKey(runId: string, nodeName: string | undefined): string | undefined {
  return nodeName && !nodeName.includes('/') ? `${runId}/${nodeName}` : nodeName;
}
