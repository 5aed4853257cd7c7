// A run's metrics: the `metrics` records of each node's `agent` channel (the lines its jobs
// appended to $TENDER_METRICS, same seqs as the agent's log), as series.
import {
  METRICS_SOURCE,
  metricSeries,
  sameCell,
  type CommandArgs,
  type CommandOutput,
  type MetricsRecord,
} from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { Datastream } from '../../datastream/datastream';
import type { Ledger } from '../../ledger/ledger';

/** Records per read: a page of the agent channel is about a megabyte. */
const PAGE = 20_000;

/** Attributes a node's record to a sweep cell (its id, `j03`), or null. */
export type CellOf = (nodeId: string, seq: number) => string | null;

export interface MetricsDeps {
  ledger: Pick<Ledger, 'getRun' | 'nodesOfRun'>;
  datastream: Pick<Datastream, 'read'>;
  /** A run's cell attribution, made once per read (a sweep knows which cell ran when on
   *  each node); absent or undefined: every record's job is null. */
  cellsOf?: (runId: string) => CellOf | undefined;
}

export async function readRunMetrics(
  deps: MetricsDeps,
  args: CommandArgs<'run.metrics'>,
): Promise<CommandOutput<'run.metrics'>> {
  const { runId, nodeName, cellId, fromSeq } = args;
  if (!deps.ledger.getRun(runId))
    throw new TenderError('not_found', `no run ${runId}`, '`tender status` lists the runs');
  const logical = [...new Set(deps.ledger.nodesOfRun(runId).map((n) => n.logicalId))];
  const wanted = nodeName === undefined ? undefined : nodeName.slice(nodeName.indexOf('/') + 1);
  if (wanted !== undefined && !logical.includes(wanted))
    throw new TenderError(
      'not_found',
      `run ${runId} has no node ${nodeName}`,
      `nodes: ${logical.join(', ')}`,
    );
  const records: MetricsRecord[] = [];
  let lastSeq = fromSeq - 1;
  for (const l of wanted === undefined ? logical : [wanted]) {
    for (let from = fromSeq; ;) {
      const page = await deps.datastream.read(runId, {
        nodeId: `${runId}/${l}`,
        channel: 'agent',
        fromSeq: from,
        limit: PAGE,
      });
      for (const r of page) {
        if (r.source === METRICS_SOURCE) records.push({ node: r.node, seq: r.seq, line: r.line });
      }
      const last = page.at(-1);
      if (last) lastSeq = Math.max(lastSeq, last.seq);
      if (!last || page.length < PAGE) break;
      from = last.seq + 1;
    }
  }
  const cellOf = deps.cellsOf?.(runId);
  // `j03`, `<run>.j03` and `3` name one cell (a cell's index is its id's number).
  const mine =
    cellId === undefined
      ? records
      : records.filter((r) => {
          const id = cellOf?.(r.node, r.seq) ?? null;
          return id !== null && sameCell(runId, id, Number(id.slice(1)), cellId);
        });
  return { ...metricSeries(mine, cellOf), lastSeq };
}
