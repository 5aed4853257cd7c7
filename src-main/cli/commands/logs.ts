import { parseArgs } from 'node:util';
import type { LogChannel, LogRecord, RunView } from '../../contract';
import { LogChannel as LogChannelSchema } from '../../contract';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { dim, info } from '../output';
import { summarize } from './run';

export const LOGS_USAGE =
  'tender logs <runId> [--node N] [--follow] [--from SEQ] [--channel agent|bootstrap|events]';

const POLL_MS = 250;

/** Prints a run's stored log; with --follow, keeps printing until the run ends. When no
 *  other process drives a detached run, following it reattaches: this process resumes the
 *  run (logs from the last stored seq, then outputs and teardown). */
export async function logsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      node: { type: 'string' },
      follow: { type: 'boolean', short: 'f', default: false },
      from: { type: 'string' },
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
  const parsedChannel = LogChannelSchema.safeParse(values.channel ?? 'agent');
  if (!parsedChannel.success)
    throw new TenderError(
      'bad_input',
      `unknown channel "${values.channel}"`,
      'channels: agent, bootstrap, events',
    );
  const channel = parsedChannel.data;

  const core = TenderCore.openAny(ctx.coreOptions);
  if (!core) throw new TenderError('not_found', `no run ${runId}: nothing in ${ctx.home} yet`);
  try {
    const run = await call(core, 'run.get', { runId });
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
    const printer = new Printer(run.count > 1 && !nodeId);
    const accept = (r: LogRecord) =>
      r.channel === channel && (!nodeId || r.node === nodeId) && r.seq >= fromSeq;

    const resumable = values.follow && core.isWriter && isUnfinished(run);
    const live: LogRecord[] = [];
    if (resumable) core.bus.on('log.lines', ({ records }) => live.push(...records.filter(accept)));
    printer.print(await read(core, runId, nodeId, channel, fromSeq));
    if (!values.follow) return EXIT.ok;

    if (resumable) {
      core.bus.on('log.lines', ({ records }) => printer.print(records.filter(accept)));
      printer.print(live.splice(0));
      info(dim(`reattaching to ${runId}…`));
      await call(core, 'run.attach', { runId });
      await core.waitRun(runId);
      return summarize(await call(core, 'run.get', { runId }), false);
    }
    // Another process drives the run (or it has ended): tail the stored log read-only.
    for (;;) {
      const view = await call(core, 'run.get', { runId });
      printer.print(await read(core, runId, nodeId, channel, fromSeq));
      if (!isUnfinished(view)) return EXIT.ok;
      if (view.detached && !core.isWriter)
        info(dim('the run is detached and another Tender process holds the ledger; waiting…'));
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    await core.close();
  }
}

function isUnfinished(run: RunView): boolean {
  return run.nodes.some((n) => n.jobPhase !== 'done');
}

async function read(
  core: TenderCore,
  runId: string,
  nodeId: string | undefined,
  channel: LogChannel,
  fromSeq: number,
) {
  const { records } = await call(core, 'logs.read', {
    runId,
    nodeId,
    channel,
    fromSeq,
    limit: 100_000,
  });
  return records;
}

/** Prints each (node, channel, seq) once, in order, whatever mix of backlog and live
 *  batches it is handed. Job output goes to stdout whole, so `> file` captures it. */
class Printer {
  private readonly last = new Map<string, number>();
  constructor(private readonly prefixNodes: boolean) {}

  print(records: LogRecord[]): void {
    let out = '';
    for (const r of records) {
      const key = `${r.node}|${r.channel}`;
      if (r.seq <= (this.last.get(key) ?? 0)) continue;
      this.last.set(key, r.seq);
      const prefix = this.prefixNodes ? `[${r.node.slice(r.node.indexOf('/') + 1)}] ` : '';
      out += `${prefix}${r.line}\n`;
    }
    if (out) process.stdout.write(out);
  }
}
