import { parseArgs } from 'node:util';
import type { LogChannel, LogRecord, RunView } from '../../contract';
import { LogChannel as LogChannelSchema, nodeNameOf, sameCell } from '../../contract';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { dim, info } from '../output';
import { mergedPages, type PageSource } from './log-pages';
import { LogPrinter } from './log-printer';
import { summarize } from './run';

export const LOGS_USAGE =
  'tender logs <runId> [--node N | --job J] [--follow] [--tail N | --from SEQ] [--channel agent|bootstrap|events]';

const POLL_MS = 250;
/** Records per `logs.read`: about a megabyte, so a long log streams in a few hundred reads
 *  while memory holds one page per node. */
const PAGE = 10_000;
const MAX_TAIL = 1_000_000; // what `logs.read` accepts

/** Prints a run's whole log, page by page; with --follow, keeps printing until the run
 *  ends. What the datastream lacks (a detached run) is fetched from the node's agent first.
 *  When no other process drives a detached run, following it reattaches: this process
 *  resumes the run (logs from the last stored seq, then outputs and teardown). */
export async function logsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      node: { type: 'string' },
      job: { type: 'string' },
      follow: { type: 'boolean', short: 'f', default: false },
      from: { type: 'string' },
      tail: { type: 'string' },
      channel: { type: 'string' },
    },
  });
  if (positionals.length !== 1)
    throw new TenderError('bad_input', 'expected one run id', `usage: ${LOGS_USAGE}`);
  const runId = positionals[0]!;
  const fromSeq = values.from === undefined ? 1 : Number(values.from);
  if (!Number.isInteger(fromSeq) || fromSeq < 1)
    throw new TenderError(
      'bad_input',
      `--from must be a sequence number ≥ 1, not "${values.from}"`,
    );
  const tail = values.tail === undefined ? undefined : Number(values.tail);
  if (tail !== undefined && (!Number.isInteger(tail) || tail < 1 || tail > MAX_TAIL))
    throw new TenderError(
      'bad_input',
      `--tail must be a number of lines from 1 to ${MAX_TAIL.toLocaleString('en-US')}, not "${values.tail}"`,
      'leave --tail out to print the whole log',
    );
  if (tail !== undefined && values.from !== undefined)
    throw new TenderError('bad_input', '--tail and --from cannot be used together', LOGS_USAGE);
  const parsedChannel = LogChannelSchema.safeParse(values.channel ?? 'agent');
  if (!parsedChannel.success)
    throw new TenderError(
      'bad_input',
      `unknown channel "${values.channel}"`,
      'channels: agent, bootstrap, events',
    );
  const channel = parsedChannel.data;

  if (values.job !== undefined && (values.node !== undefined || values.channel !== undefined))
    throw new TenderError(
      'bad_input',
      '--job is one cell of a sweep: leave --node and --channel out',
      LOGS_USAGE,
    );
  const core = TenderCore.openAny(ctx.coreOptions);
  if (!core) throw new TenderError('not_found', `no run ${runId}: nothing in ${ctx.home} yet`);
  try {
    const run = await call(core, 'run.get', { runId });
    if (values.job !== undefined)
      return await printCell(core, runId, values.job, fromSeq, values.follow === true);
    const nodeId =
      values.node === undefined
        ? undefined
        : `${runId}/${values.node.startsWith('node-') ? values.node : `node-${values.node}`}`;
    if (nodeId && !run.nodes.some((n) => n.id === nodeId)) {
      throw new TenderError(
        'bad_input',
        `run ${runId} has no node ${values.node}`,
        `nodes: ${run.nodes.map((n) => n.logicalId).join(', ')}`,
      );
    }
    const log: NodeLog = {
      core,
      runId,
      channel,
      nodes: nodeId ? [nodeId] : run.nodes.map((n) => n.id),
      printer: new LogPrinter(process.stdout, run.count > 1 && !nodeId),
      accept: (r) => r.channel === channel && (!nodeId || r.node === nodeId) && r.seq >= fromSeq,
      starts: new Map(),
    };
    await printStored(log, nodeId, fromSeq, tail);
    if (!values.follow) return EXIT.ok;

    if (core.isWriter && isUnfinished(run)) {
      // Nothing stores this run's records until the link below is up, so no record can
      // fall between the pages printed above and the live batches.
      core.bus.on('log.lines', ({ records }) => log.printer.write(records.filter(log.accept)));
      info(dim(`reattaching to ${runId}…`));
      await call(core, 'run.attach', { runId });
      await core.waitRun(runId);
      return summarize(await call(core, 'run.get', { runId }), false);
    }
    // Another process drives the run (or it has ended): tail the stored log read-only.
    for (;;) {
      const view = await call(core, 'run.get', { runId });
      await drain(log);
      if (!isUnfinished(view)) return EXIT.ok;
      if (view.detached && !core.isWriter)
        info(dim('the run is detached and another Tender process holds the ledger; waiting…'));
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    await core.close();
  }
}

/** One sweep cell's log: its node's records between its seqs; with --follow, until the
 *  cell ends. */
async function printCell(
  core: TenderCore,
  runId: string,
  cellId: string,
  fromSeq: number,
  follow: boolean,
): Promise<number> {
  const printer = new LogPrinter(process.stdout, false);
  let from = fromSeq;
  for (;;) {
    const { records } = await call(core, 'logs.read', {
      runId,
      cellId,
      fromSeq: from,
      limit: PAGE,
    });
    printer.write(records);
    if (records.length > 0) from = records[records.length - 1]!.seq + 1;
    if (records.length === PAGE) continue;
    const cell = (await call(core, 'run.cells', { runId })).find((c) =>
      sameCell(runId, c.id, c.index, cellId),
    );
    const isOver = !cell || (cell.status !== 'running' && cell.status !== 'queued');
    if (!follow || isOver) {
      // A cell that ended while we read may have records after the last page.
      if (follow)
        printer.write(
          (await call(core, 'logs.read', { runId, cellId, fromSeq: from, limit: PAGE })).records,
        );
      return EXIT.ok;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

interface NodeLog {
  core: TenderCore;
  runId: string;
  channel: LogChannel;
  nodes: string[];
  printer: LogPrinter;
  accept: (r: LogRecord) => boolean;
  /** Where each node's printing starts (a tail's first seq, or --from). */
  starts: Map<string, number>;
}

/** The stored log, with what the agents have beyond it. The writer stores the agents'
 *  records first and prints one log; a read-only process cannot store them, so it prints
 *  the stored log and then the agents' records as they come (with --tail: the last N of
 *  the two together). */
async function printStored(
  log: NodeLog,
  nodeId: string | undefined,
  fromSeq: number,
  tail: number | undefined,
): Promise<void> {
  const { core, printer } = log;
  const fromAgents = log.channel === 'agent';
  const fetched: LogRecord[] = [];
  if (fromAgents && (core.isWriter || tail !== undefined)) {
    const off = core.isWriter
      ? () => {}
      : core.bus.on('log.lines', ({ records }) => fetched.push(...records.filter(log.accept)));
    await backfill(log, nodeId, tail);
    off();
  }
  for (const n of log.nodes) {
    if (tail === undefined) log.starts.set(n, fromSeq);
    else {
      const mine = lastOf(fetched, n, tail);
      const wanted = tail - mine.length;
      log.starts.set(n, wanted > 0 ? await tailStart(log, n, wanted) : Number.MAX_SAFE_INTEGER);
    }
  }
  await drain(log);
  if (fetched.length > 0) {
    const mine = log.nodes.flatMap((n) => lastOf(fetched, n, tail!));
    await printer.print(mine.sort((a, b) => a.ts - b.ts || a.node.localeCompare(b.node)));
  }
  if (fromAgents && !core.isWriter && tail === undefined) {
    const off = core.bus.on('log.lines', ({ records }) =>
      printer.write(records.filter(log.accept)),
    );
    await backfill(log, nodeId, undefined);
    off();
  }
  if (fromAgents && core.isWriter) await drain(log); // anything stored since the first pass
}

/** Prints every stored record past what was printed of each node, page by page. */
async function drain(log: NodeLog): Promise<void> {
  const sources: PageSource[] = log.nodes.map((node) => ({
    fromSeq: Math.max(log.starts.get(node) ?? 1, log.printer.lastSeq(node, log.channel) + 1),
    read: async (from, limit) =>
      (
        await call(log.core, 'logs.read', {
          runId: log.runId,
          nodeName: nodeNameOf(node),
          channel: log.channel,
          fromSeq: from,
          limit,
        })
      ).records,
  }));
  for await (const page of mergedPages(sources, PAGE)) await log.printer.print(page);
}

/** The seq of a node's `count`-th last stored record (1 when it has none yet). */
async function tailStart(log: NodeLog, node: string, count: number): Promise<number> {
  const { records } = await call(log.core, 'logs.read', {
    runId: log.runId,
    nodeName: nodeNameOf(node),
    channel: log.channel,
    tail: count,
    limit: 1,
  });
  return records[0]?.seq ?? 1;
}

async function backfill(log: NodeLog, nodeId: string | undefined, tail: number | undefined) {
  const nodeName = nodeId === undefined ? undefined : nodeNameOf(nodeId);
  const { nodes } = await call(log.core, 'logs.backfill', { runId: log.runId, nodeName, tail });
  for (const n of nodes) {
    const name = nodeNameOf(n.nodeId);
    if (n.outcome === 'unreachable')
      info(
        dim(`${name}: could not fetch its log from the node (${n.detail}); showing what is stored`),
      );
    else if (n.detail) info(dim(`${name}: ${n.detail}`));
  }
}

function lastOf(records: LogRecord[], node: string, count: number): LogRecord[] {
  return records.filter((r) => r.node === node).slice(-count);
}

function isUnfinished(run: RunView): boolean {
  return run.nodes.some((n) => n.jobPhase !== 'done');
}
