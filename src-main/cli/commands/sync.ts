import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { watch } from 'chokidar';
import type { CommandOutput, RunView } from '../../contract';
import { TenderCore } from '../../core/tender-core';
import { TenderError, toErrorData } from '../../base/tender-error';
import { describeSync } from '../../services/workspace/run-sync';
import { SyncScheduler } from '../../jobs/workspace/sync-scheduler';
import { WorkspaceIgnore } from '../../jobs/workspace/watch-ignore';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { dim, info, printError } from '../output';

export const SYNC_USAGE = 'tender sync <runId> [--watch]';

// How soon a watcher notices that its run has ended; one read of the ledger each time.
const RUN_POLL_MS = 1_000;

/** Pushes what changed in a running job's workspace into its node(s), in place. With
 *  --watch, again after every change, until Ctrl-C or the run ends. Works beside the
 *  process that drives the run: the core is opened read-only when another one holds it. */
export async function syncCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { watch: { type: 'boolean', short: 'w', default: false } },
  });
  if (positionals.length !== 1)
    throw new TenderError('bad_input', 'expected one run id', `usage: ${SYNC_USAGE}`);
  const runId = positionals[0]!;
  const first = await syncOnce(ctx, runId);
  print(first);
  if (!values.watch) return EXIT.ok;
  return watchRun(ctx, runId);
}

/** Opens the core for one sync only, so a watcher holds the ledger for moments, not hours. */
async function syncOnce(ctx: CliContext, runId: string): Promise<CommandOutput<'workspace.sync'>> {
  const core = TenderCore.openAny(ctx.coreOptions);
  if (!core) throw new TenderError('not_found', `no run ${runId}: nothing in ${ctx.home} yet`);
  try {
    return await call(core, 'workspace.sync', { runId });
  } finally {
    await core.close();
  }
}

async function watchRun(ctx: CliContext, runId: string): Promise<number> {
  // A reader never stands in the way of the process that drives the run, or of `tender down`.
  const reader = TenderCore.openReadonly(ctx.coreOptions)!;
  try {
    const run = reader.ledger.getRun(runId)!;
    const { workdir, exclude } = reader.ledger.jobSpec(run.jobId).workspace!;
    const ignore = new WorkspaceIgnore(workdir, exclude);
    const scheduler = new SyncScheduler(async () => {
      try {
        print(await syncOnce(ctx, runId), new Date());
      } catch (err) {
        printError(toErrorData(err));
      }
    });
    const watcher = watch(workdir, {
      ignored: (path, stats) => ignore.isIgnored(path, stats),
      ignoreInitial: true,
    });
    watcher.on('all', (_event, path) => {
      if (basename(path) === '.gitignore') ignore.forget(path);
      scheduler.changed();
    });
    watcher.on('error', (err) => printError(toErrorData(err)));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    info(dim(`watching ${workdir} for changes; Ctrl-C stops`));

    const why = await new Promise<string>((resolve) => {
      const stop = (reason: string) => {
        clearInterval(poll);
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        resolve(reason);
      };
      const onSignal = () => stop('stopped');
      const poll = setInterval(() => {
        void call(reader, 'run.get', { runId }).then(
          (view) => {
            if (!isLive(view)) stop(`run ${runId} has ended (${view.status}); stopped`);
          },
          () => {}, // a busy ledger: ask again next time
        );
      }, RUN_POLL_MS);
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
    });
    await watcher.close();
    await scheduler.stop();
    info(dim(why));
    return EXIT.ok;
  } finally {
    await reader.close();
  }
}

/** Whether any node still runs the job in its workspace. */
function isLive(view: RunView): boolean {
  return view.nodes.some(
    (n) => n.stage === 'dormant' && (n.jobPhase === 'setup' || n.jobPhase === 'run'),
  );
}

/** One line per node: what travelled. */
function print(out: CommandOutput<'workspace.sync'>, at?: Date): void {
  const time = at ? `${at.toTimeString().slice(0, 8)} ` : '';
  for (const n of out.nodes) {
    const node = n.nodeId.slice(n.nodeId.indexOf('/') + 1);
    process.stdout.write(
      `${time}${node}: ${describeSync(n)}, ${n.unchanged} unchanged, ${n.elapsedMs} ms\n`,
    );
  }
}
