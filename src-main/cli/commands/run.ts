import { parseArgs } from 'node:util';
import {
  CLI_ORIGIN,
  parseGridFlag,
  SweepSpec,
  type SweepEstimate,
  type JobSpec,
  type PolicyInput,
  type RunView,
} from '../../contract';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { parseConstraint } from '../../contract/constraint';
import { HOSTS_PROVIDER } from '../../providers/known';
import { findHost } from '../../providers/ssh/hosts-file';
import { EarlyDials } from '../../nodes/early-dials';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { askOnInterrupt } from '../interrupt';
import { durationFlag, positiveNumber } from './flags';
import { poolFlags } from './run-pool-flags';
import { makeLogPrinter } from '../log-printer';
import { bold, green, info, red } from '../output';
import { readEnvFlags } from '../env-flags';
import { readSecretFlags } from '../secret-input';
import { checkPushConsent, loadJobOrTask } from './run-input';
import { terminalPrompt } from '../hidden-prompt';
import { imageLoginSecret } from './image-login-secret';

export const RUN_USAGE = `tender run <job.toml | task.yaml> [--provider P] [--count N] [--hosts a,b] [--cluster C] [--gpu G] [--gpus N] [--min-vram-gb N] [--max-price X] [--image I [--image-login USER@SERVER]] [--disk-gb N] [--interruptible [--bid X]] [--constraint EXPR]… [--grid NAME=v1,v2]… [--keep] [--fresh-setup] [--new-node] [--max-duration 6h] [--idle-timeout 20m] [--budget USD] [--after-job destroy|keep_warm] [--unreachable-grace 30m] [--collect-grace 1h] [--env NAME=VALUE | NAME]… [--secret NAME | NAME=@file]… [--secret-file FILE]… [--push-secrets] [--workdir-outside] [--detach] [--json]`;

export async function runCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      provider: { type: 'string' },
      count: { type: 'string' },
      hosts: { type: 'string' },
      cluster: { type: 'string' },
      gpu: { type: 'string' },
      gpus: { type: 'string' },
      'min-vram-gb': { type: 'string' },
      'max-price': { type: 'string' },
      image: { type: 'string' },
      'image-login': { type: 'string' },
      'disk-gb': { type: 'string' },
      interruptible: { type: 'boolean' },
      bid: { type: 'string' },
      constraint: { type: 'string', multiple: true },
      grid: { type: 'string', multiple: true },
      keep: { type: 'boolean', default: false },
      'fresh-setup': { type: 'boolean', default: false },
      'new-node': { type: 'boolean', default: false },
      'max-duration': { type: 'string' },
      'idle-timeout': { type: 'string' },
      budget: { type: 'string' },
      'after-job': { type: 'string' },
      'unreachable-grace': { type: 'string' },
      'collect-grace': { type: 'string' },
      detach: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', short: 'v', default: false },
      env: { type: 'string', multiple: true },
      secret: { type: 'string', multiple: true, default: [] },
      'push-secrets': { type: 'boolean', default: false },
      'workdir-outside': { type: 'boolean', default: false },
      'secret-file': { type: 'string', multiple: true, default: [] },
    },
  });
  if (positionals.length !== 1)
    throw new TenderError('bad_input', `expected one job file`, `usage: ${RUN_USAGE}`);
  // Everything about the input is checked before anything is opened or written.
  const secrets = await readSecretFlags(values.secret, values['secret-file'], {
    env: ctx.env,
    prompt: terminalPrompt(),
  });
  const loaded = loadJobOrTask(positionals[0]!, ctx, {
    plain: readEnvFlags(values.env, ctx.env),
    secrets,
    poolFlags: poolFlags(values),
  });
  await checkPushConsent(loaded, {
    pushSecrets: values['push-secrets'],
    workdirOutside: values['workdir-outside'],
  });
  const pool = loaded.pool;
  const poolSecrets = await imageLoginSecret(pool, secrets, ctx.env);

  // `--constraint EXPR` (repeatable) adds to the job's constraints, each checked as the
  // job file's are.
  const constrained = values.constraint?.length
    ? {
        ...loaded.job,
        constraints: [...loaded.job.constraints, ...values.constraint.map(constraintFlag)],
      }
    : loaded.job;
  const job = values.grid?.length ? withGrid(constrained, values.grid) : constrained;
  const {
    constraint: _constraints,
    grid: _grid,
    env: _env,
    secret: _secret,
    'secret-file': _secretFile,
    'image-login': _imageLogin,
    ...flags
  } = values;
  const policy = { ...loaded.policy, ...policyFlags(flags) };
  // Host names too are checked before anything is opened or written.
  const hosts =
    pool.provider === HOSTS_PROVIDER ? pool.hosts.map((n) => findHost(ctx.home, n)) : [];
  // Checked: the hosts are dialed while the core opens (nodes/early-dials.ts).
  const earlyDials = hosts.length > 0 ? new EarlyDials(ctx.home, hosts) : undefined;
  return followRun(
    { ...ctx, coreOptions: { ...ctx.coreOptions, earlyDials } },
    async (core) => {
      if (job.sweep) {
        const plan = await call(core, 'run.plan', { job, pool, reuseWarm: !values['new-node'] });
        if (plan.sweep) info(estimateLine(plan.sweep));
      }
      return call(core, 'run.start', {
        job,
        pool,
        keep: values.keep,
        policy,
        source: loaded.file,
        origin: CLI_ORIGIN,
        freshSetup: values['fresh-setup'],
        reuseWarm: !values['new-node'],
        secrets: poolSecrets,
      });
    },
    {
      prefixNodes: pool.count > 1 || pool.hosts.length > 1,
      verbose: values.verbose === true,
      detach: values.detach === true,
      json: values.json === true,
    },
  );
}

export interface FollowOptions {
  /** Prefix log lines with their node; absent: when the run has several nodes. */
  prefixNodes?: boolean;
  verbose: boolean;
  detach: boolean;
  json: boolean;
}

/** Starts a run (`start`) in a core of this process and follows it to its end, printing its
 *  logs; Ctrl-C asks whether to cancel or detach. Shared by `tender run` and `tender rerun`. */
export async function followRun(
  ctx: CliContext,
  start: (core: TenderCore) => Promise<RunView>,
  opts: FollowOptions,
): Promise<number> {
  let core: TenderCore;
  try {
    core = TenderCore.open(ctx.coreOptions);
  } finally {
    ctx.coreOptions.earlyDials?.close(); // what the core did not take
  }
  try {
    // Node prefixes when the run has several nodes (a rerun learns that from the run).
    const printer = (several: boolean) =>
      makeLogPrinter({ prefixNodes: several, showBootstrap: opts.verbose });
    let print = opts.prefixNodes === undefined ? null : printer(opts.prefixNodes);
    core.bus.on('log.lines', ({ records }) => (print ??= printer(false))(records));
    let bannerFor = '';
    core.bus.on('run.changed', (r) => {
      print ??= printer(r.count > 1);
      if (bannerFor === r.id) return;
      bannerFor = r.id;
      info(bold(`run ${r.id}: ${r.jobName} on ${r.provider} × ${r.count}`));
    });
    const run = await start(core);
    if (opts.detach) return await detachWhenRunning(core, run.id);

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
    return summarize(view, opts.json);
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

/** Prints the outcome and returns the exit code: 0 completed, 1 the job failed or was
 *  cancelled (as before: scripts that treat a cancel as not-done keep working), 3 the
 *  machinery failed (no exit code from the job, or a lease not confirmed destroyed). */
export function summarize(view: RunView, json: boolean): number {
  const notDestroyed = view.nodes.filter((n) => n.stage !== 'destroyed' && n.stage !== 'dormant');
  const jobFailed =
    view.nodes.some((n) => n.exitCode !== null && n.exitCode !== 0) ||
    (view.sweep !== null && view.sweep.failed > 0);
  const code =
    view.status === 'completed'
      ? notDestroyed.length > 0
        ? EXIT.infrastructure
        : EXIT.ok
      : jobFailed || view.status === 'cancelled' || view.failedReason?.includes('cancelled')
        ? EXIT.jobFailed
        : EXIT.infrastructure;
  if (view.status === 'completed') info(green(`run ${view.id} completed`));
  else if (view.status === 'cancelled')
    info(`run ${view.id} cancelled: ${view.failedReason ?? 'by its user'}`);
  else info(red(`run ${view.id} failed: ${view.failedReason ?? 'unknown reason'}`));
  if (view.sweep) info(sweepLine(view.sweep, view.id));
  info(`outputs: ${view.outputsDir}`);
  const budget =
    view.cost.budgetUsd === null ? '' : ` of a $${view.cost.budgetUsd.toFixed(2)} budget`;
  info(`cost: $${view.cost.accruedUsd.toFixed(4)}${budget}`);
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
      JSON.stringify({
        runId: view.id,
        status: view.status,
        failedReason: view.failedReason,
        nodes,
        ...(view.sweep ? { cells: view.sweep } : {}),
        outputsDir: view.outputsDir,
        cost: view.cost,
      }) + '\n',
    );
  }
  return code;
}

/** The [policy] flags given on the command line (they override the job file's). */
function policyFlags(values: Record<string, string | boolean | undefined>): PolicyInput {
  const out: PolicyInput = {};
  const text = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const md = text('max-duration');
  if (md !== undefined) out.maxDurationMs = durationFlag('--max-duration', md, true);
  const it = text('idle-timeout');
  if (it !== undefined) out.idleTimeoutMs = durationFlag('--idle-timeout', it, true);
  const ug = text('unreachable-grace');
  if (ug !== undefined) {
    const ms = durationFlag('--unreachable-grace', ug, false);
    if (ms === null || ms < 1_000)
      throw new TenderError('bad_input', '--unreachable-grace must be at least 1s');
    out.unreachableGraceMs = ms;
  }
  const cg = text('collect-grace');
  if (cg !== undefined) {
    const ms = durationFlag('--collect-grace', cg, false);
    if (ms === null || ms < 1_000)
      throw new TenderError('bad_input', '--collect-grace must be at least 1s');
    out.collectGraceMs = ms;
  }
  const b = text('budget');
  if (b !== undefined) out.budgetUsd = positiveNumber('--budget', b.replace(/^\$/, ''));
  const aj = text('after-job');
  if (aj !== undefined) {
    if (aj !== 'destroy' && aj !== 'keep_warm')
      throw new TenderError('bad_input', `--after-job must be destroy or keep_warm, not "${aj}"`);
    out.afterJob = aj;
  }
  return out;
}

/** What a sweep is expected to take, before it starts. */
export function estimateLine(e: SweepEstimate): string {
  const head = `sweep: ${e.cells} cells over ${e.nodes} node${e.nodes === 1 ? '' : 's'}`;
  if (e.cellSeconds === null || e.nodeHours === null || e.hours === null)
    return `${head} (no earlier sweep of this job to estimate from)`;
  const span = (h: number) =>
    h * 60 < 1
      ? `${(h * 3600).toFixed(1)} s`
      : h < 1
        ? `${Math.round(h * 60)} min`
        : `${h.toFixed(1)} h`;
  return `${head}; a cell took ${span(e.cellSeconds / 3600)} in ${e.basedOn}: about ${e.nodeHours.toFixed(2)} node-hours, ${span(e.hours)} on the clock`;
}

/** A sweep's cells by status, and where to look next. */
function sweepLine(s: NonNullable<RunView['sweep']>, runId: string): string {
  const parts = (['completed', 'failed', 'cancelled', 'queued', 'running'] as const)
    .filter((k) => s[k] > 0)
    .map((k) => `${s[k]} ${k}`);
  const next = s.failed > 0 ? `; rerun them: tender rerun ${runId} --failed` : '';
  return `${s.total} cells: ${parts.join(', ')} (tender cells ${runId})${next}`;
}

/** `--grid NAME=v1,v2` (repeatable): axes added to the job's [sweep] (an axis of the same
 *  name replaced), checked as the job file's are. */
export function withGrid(job: JobSpec, flags: string[]): JobSpec {
  let axes: Record<string, string[]>;
  try {
    axes = parseGridFlag(flags);
  } catch (err) {
    throw new TenderError('bad_input', (err as Error).message);
  }
  const sweep = SweepSpec.safeParse({
    axes: { ...job.sweep?.axes, ...axes },
    cells: job.sweep?.cells ?? [],
  });
  if (!sweep.success)
    throw new TenderError(
      'bad_input',
      `--grid: ${sweep.error.issues[0]?.message ?? 'not a sweep'}`,
    );
  return { ...job, sweep: sweep.data };
}

/** One `--constraint`: parsed now, so a bad one is bad input before anything runs. */
function constraintFlag(text: string): string {
  try {
    parseConstraint(text);
  } catch (err) {
    throw new TenderError('bad_input', `--constraint: ${(err as Error).message}`);
  }
  return text;
}
