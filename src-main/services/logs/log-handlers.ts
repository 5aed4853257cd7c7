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
    'logs.backfill': async ({ runId, nodeId, tail }) => ({
      nodes: await core.backfill(runId, qualified(runId, nodeId), tail),
    }),
    'logs.read': async ({ runId, nodeId, channel, fromSeq, limit, tail, jobId }) => {
      if (!core.ledger.getRun(runId)) throw new TenderError('not_found', `no run ${runId}`);
      if (jobId !== undefined)
        return { records: await cellRecords(core, runId, jobId, fromSeq, limit) };
      return {
        records: await core.datastream.read(runId, {
          nodeId: qualified(runId, nodeId),
          channel,
          fromSeq,
          limit,
          tail,
        }),
      };
    },
    'logs.search': async ({ runId, nodeId, query, limit }) => {
      if (!core.ledger.getRun(runId)) throw new TenderError('not_found', `no run ${runId}`);
      const node = qualified(runId, nodeId);
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
  jobId: string,
  fromSeq: number,
  limit: number,
): Promise<LogRecord[]> {
  const cells = core.ledger.listCells(runId);
  const cell = cells.find((c) => sameCell(runId, c.id, c.index, jobId));
  if (!cell)
    throw new TenderError(
      'not_found',
      cells.length === 0
        ? `run ${runId} is no sweep: it has no cells`
        : `run ${runId} has no cell ${jobId}`,
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

/** `node-0` of a run is `<run>/node-0`; a qualified id passes through. */
function qualified(runId: string, nodeId: string | undefined): string | undefined {
  return nodeId && !nodeId.includes('/') ? `${runId}/${nodeId}` : nodeId;
}
