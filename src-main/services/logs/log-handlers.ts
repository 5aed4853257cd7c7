import { isDataSource, type Handlers, type LogRecord } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { Datastream } from '../../datastream/datastream';
import type { Ledger } from '../../ledger/ledger';
import type { BackfillRun } from './agent-backfill';

export interface LogDeps {
  ledger: Pick<Ledger, 'getRun'>;
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
    'logs.read': async ({ runId, nodeId, channel, fromSeq, limit, tail }) => {
      if (!core.ledger.getRun(runId)) throw new TenderError('not_found', `no run ${runId}`);
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

/** `node-0` of a run is `<run>/node-0`; a qualified id passes through. */
function qualified(runId: string, nodeId: string | undefined): string | undefined {
  return nodeId && !nodeId.includes('/') ? `${runId}/${nodeId}` : nodeId;
}
