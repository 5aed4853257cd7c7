import { parseArgs } from 'node:util';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { bold, dim, info, table } from '../output';
import { metricsCsv, metricTables } from './metrics-text';

export const METRICS_USAGE = 'tender metrics <runId> [--node N] [--json | --csv]';

/** A run's metrics (the JSON lines its jobs appended to $TENDER_METRICS): a table per node,
 *  or the series as JSON, or CSV rows. What the datastream lacks of a run nobody drives is
 *  fetched from its nodes first, as `tender logs` does. */
export async function metricsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      node: { type: 'string' },
      json: { type: 'boolean', default: false },
      csv: { type: 'boolean', default: false },
    },
  });
  const [runId, extra] = positionals;
  if (!runId || extra !== undefined)
    throw new TenderError('bad_input', 'give one run id', `usage: ${METRICS_USAGE}`);
  if (values.json && values.csv)
    throw new TenderError('bad_input', '--json and --csv cannot be used together', METRICS_USAGE);
  const nodeName =
    values.node === undefined
      ? undefined
      : values.node.startsWith('node-')
        ? values.node
        : `node-${values.node}`;
  const core = TenderCore.openAny({ ...ctx.coreOptions, reconcile: false });
  if (!core)
    throw new TenderError('not_found', `no run ${runId}`, '`tender status` lists the runs');
  try {
    const read = () => call(core, 'run.metrics', { runId, ...(nodeName ? { nodeName } : {}) });
    // An unknown run or node is named by the first read, before any node is asked.
    let metrics = await read();
    if (core.isWriter && (await fetchFromNodes(core, runId, nodeName))) metrics = await read();
    const { series, skipped } = metrics;
    if (skipped > 0)
      info(dim(`${skipped} line(s) of $TENDER_METRICS were no JSON object: left out`));
    if (values.json) process.stdout.write(`${JSON.stringify(series)}\n`);
    else if (values.csv) process.stdout.write(metricsCsv(series));
    else if (series.length === 0)
      info(
        `run ${runId} has no metrics${nodeName ? ` on ${nodeName}` : ''} yet ${dim('(a job appends JSON lines to $TENDER_METRICS)')}`,
      );
    else
      process.stdout.write(
        metricTables(series)
          .map((b) => `${bold(b.heading, process.stdout)}\n${table(b.rows)}\n`)
          .join('\n'),
      );
    return EXIT.ok;
  } finally {
    await core.close();
  }
}

/** Stores the records the datastream lacks (a detached run) from each reachable node;
 *  whether any came. */
async function fetchFromNodes(
  core: TenderCore,
  runId: string,
  nodeName?: string,
): Promise<boolean> {
  const { nodes } = await call(core, 'logs.backfill', { runId, ...(nodeName ? { nodeName } : {}) });
  for (const n of nodes) {
    if (n.outcome !== 'unreachable') continue;
    const name = n.nodeId.slice(n.nodeId.indexOf('/') + 1);
    info(
      dim(`${name}: could not fetch its log from the node (${n.detail}); showing what is stored`),
    );
  }
  return nodes.some((n) => n.outcome === 'stored' && n.records > 0);
}
