import { parseArgs } from 'node:util';
import type { RunView } from '../../contract';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../core/tender-error';
import { loadJobFile } from '../../jobs/job-file';
import { KNOWN_PROVIDERS } from '../../providers/known';
import { findHost } from '../../providers/ssh/hosts-file';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { askOnInterrupt } from '../interrupt';
import { positiveNumber } from './flags';
import { makeLogPrinter } from '../log-printer';
import { bold, green, info, red } from '../output';

export const RUN_USAGE = `tender run <job.toml> [--provider P] [--count N] [--hosts a,b] [--gpu G] [--gpus N] [--min-vram-gb N] [--max-price X] [--image I] [--disk-gb N] [--keep] [--detach] [--json]`;

export async function runCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      provider: { type: 'string' },
      count: { type: 'string' },
      hosts: { type: 'string' },
      gpu: { type: 'string' },
      gpus: { type: 'string' },
      'min-vram-gb': { type: 'string' },
      'max-price': { type: 'string' },
      image: { type: 'string' },
      'disk-gb': { type: 'string' },
      keep: { type: 'boolean', default: false },
      detach: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', short: 'v', default: false },
    },
  });
  if (positionals.length !== 1)
    throw new TenderError('bad_input', `expected one job file`, `usage: ${RUN_USAGE}`);
  // Everything about the input is checked before anything is opened or written.
  const loaded = loadJobFile(positionals[0]!, { knownProviders: KNOWN_PROVIDERS, env: ctx.env });
  const pool = { ...loaded.pool };
  if (values.provider !== undefined) {
    if (!KNOWN_PROVIDERS.includes(values.provider)) {
      throw new TenderError(
        'bad_input',
        `unknown provider "${values.provider}"`,
        `known providers: ${KNOWN_PROVIDERS.join(', ')}`,
      );
    }
    pool.provider = values.provider;
  }
  // Marketplace flags override the [pool] table's keys of the same meaning.
  if (values.gpu !== undefined) pool.gpu = values.gpu;
  if (values.gpus !== undefined) pool.gpu_count = positiveNumber('--gpus', values.gpus, true);
  if (values['min-vram-gb'] !== undefined)
    pool.min_vram_gb = positiveNumber('--min-vram-gb', values['min-vram-gb']);
  if (values['max-price'] !== undefined)
    pool.max_price = positiveNumber('--max-price', values['max-price']);
  if (values.image !== undefined) pool.image = values.image;
  if (values['disk-gb'] !== undefined)
    pool.disk_gb = positiveNumber('--disk-gb', values['disk-gb'], true);
  if (values.hosts !== undefined) {
    pool.hosts = values.hosts
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    if (values.provider === undefined && pool.provider === 'local') pool.provider = 'ssh';
  }
  if (values.count !== undefined) {
    const n = Number(values.count);
    if (!Number.isInteger(n) || n < 1 || n > 64)
      throw new TenderError(
        'bad_input',
        `--count must be a whole number from 1 to 64, not "${values.count}"`,
      );
    pool.count = n;
  }

  // Host names too are checked before anything is opened or written.
  for (const name of pool.provider === 'ssh' ? pool.hosts : []) findHost(ctx.home, name);
  const core = TenderCore.open(ctx.coreOptions);
  try {
    const print = makeLogPrinter({
      prefixNodes: pool.count > 1 || pool.hosts.length > 1,
      showBootstrap: values.verbose === true,
    });
    core.bus.on('log.lines', ({ records }) => print(records));
    let bannerFor = '';
    core.bus.on('run.changed', (r) => {
      if (bannerFor === r.id) return;
      bannerFor = r.id;
      info(bold(`run ${r.id}: ${r.jobName} on ${r.provider} × ${r.count}`));
    });
    const run = await call(core, 'run.start', {
      job: loaded.job,
      pool,
      keep: values.keep,
      source: loaded.file,
    });
    if (values.detach) return await detachWhenRunning(core, run.id);

    // Detaching (asked for, or the terminal went away) leaves the job running on its nodes;
    // the ledger records the run as detached and any later Tender can pick it up.
    let markDetached!: (why: 'asked' | 'terminated') => void;
    const detachedP = new Promise<'asked' | 'terminated'>((r) => (markDetached = r));
    const detach = (why: 'asked' | 'terminated') =>
      void call(core, 'run.detach', { runId: run.id }).then(() => {
        finishDetach(run.id);
        markDetached(why);
      });
    const stopAsking = askOnInterrupt({
      onCancel: () => {
        info(red(`cancelling ${run.id}: stopping the job, collecting outputs, tearing down…`));
        void call(core, 'run.cancel', { runId: run.id });
      },
      onDetach: () => detach('asked'),
    });
    const onTerminate = () => {
      info(red('terminated: detaching, the job keeps running'));
      detach('terminated');
    };
    process.once('SIGTERM', onTerminate);
    process.once('SIGHUP', onTerminate);
    const outcome = await Promise.race([core.waitRun(run.id), detachedP]);
    stopAsking();
    process.off('SIGTERM', onTerminate);
    process.off('SIGHUP', onTerminate);
    core.datastream.flush();
    if (outcome === 'asked') return EXIT.ok;
    if (outcome === 'terminated') return EXIT.infrastructure;
    const view = await call(core, 'run.get', { runId: run.id });
    return summarize(view, values.json === true);
  } finally {
    await core.close();
  }
}

async function detachWhenRunning(core: TenderCore, runId: string): Promise<number> {
  await core.waitJobsStarted(runId);
  await call(core, 'run.detach', { runId });
  finishDetach(runId);
  return EXIT.ok;
}

function finishDetach(runId: string): void {
  info(`detached from ${runId}: the job keeps running on its node(s).`);
  info(`  follow it:   tender logs --follow ${runId}`);
  info(`  tear down:   tender down --all`);
}

/** Prints the outcome and returns the exit code: 0 completed, 1 the job failed, 3 the
 *  machinery failed (no exit code from the job, or a lease not confirmed destroyed). */
export function summarize(view: RunView, json: boolean): number {
  const notDestroyed = view.nodes.filter((n) => n.stage !== 'destroyed' && n.stage !== 'dormant');
  const jobFailed = view.nodes.some((n) => n.exitCode !== null && n.exitCode !== 0);
  const code =
    view.status === 'completed'
      ? notDestroyed.length > 0
        ? EXIT.infrastructure
        : EXIT.ok
      : jobFailed || view.failedReason?.includes('cancelled')
        ? EXIT.jobFailed
        : EXIT.infrastructure;
  if (view.status === 'completed') info(green(`run ${view.id} completed`));
  else info(red(`run ${view.id} failed: ${view.failedReason ?? 'unknown reason'}`));
  info(`outputs: ${view.outputsDir}`);
  for (const n of notDestroyed) {
    info(
      red(
        `lease of ${n.logicalId} (${n.leaseId ?? n.label}) is ${n.stage}, not confirmed destroyed; run \`tender down --all\``,
      ),
    );
  }
  if (json) {
    const nodes = view.nodes.map((n) => ({
      id: n.logicalId,
      stage: n.stage,
      leaseId: n.leaseId,
      jobStatus: n.jobStatus,
      exitCode: n.exitCode,
      outputsDir: `${view.outputsDir}/${n.logicalId}/outputs`,
    }));
    process.stdout.write(
      JSON.stringify({ runId: view.id, status: view.status, nodes, outputsDir: view.outputsDir }) +
        '\n',
    );
  }
  return code;
}
