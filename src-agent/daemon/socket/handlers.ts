// One handler per op of docs/agent-protocol.md; the table's type makes a missing one a
// compile error.
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { finishPendingApply } from '../../commands/delta-apply';
import { glanceOutputSet } from '../../commands/output-set';
import { PROTOCOL_VERSION, type OpName, type Ops, PHASES } from '../../wire/protocol';
import { AGENT_VERSION } from '../../version';
import { capabilities } from '../probes/capabilities';
import type { DaemonContext } from '../context';
import { cleanSlate } from '../job/clean-slate';
import { parseConfigure, readJobIdentity, writeJobFile } from '../job/job-config';
import { parseHostSetupAppend } from '../host/host-setup-request';
import { parseLease } from '../dead-man/lease-params';
import { ensureCacheDir } from '../environment/node-cache';
import { createRedactor } from '../logs/redact';
import { chosenEnvDir, startSetupWithEnv } from '../phases/setup-start';
import { ruleWords } from '../telemetry/gpu-idle-rule';
import { RequestError, oneOf, optionalNumber, requiredString, stringMap } from './request-checks';
import { shellEnvScript, writeShellEnv } from '../environment/shell-env';
import { buildTaskEnv, droppedKeysNotice } from '../environment/task-env';

const DEFAULT_GRACE_MS = 10_000;
/** `status` answers within this even while a large cache is being walked. */
const CACHE_MEASURE_WAIT_MS = 2_000;

/** What a handler may ask of the connection it serves. */
export interface RequestScope {
  /** Starts delivering log records from `fromSeq`, right after this response is written. */
  subscribe(fromSeq: number): void;
  /** Runs once this response is written. */
  afterResponse(fn: () => void): void;
}

type Fields = Record<string, unknown>;
type Handler<K extends OpName> = (
  ctx: DaemonContext,
  req: Fields,
  scope: RequestScope,
) => Promise<Ops[K]['result']> | Ops[K]['result'];

export const handlers: { [K in OpName]: Handler<K> } = {
  async hello(ctx) {
    return {
      agentId: ctx.agentId,
      version: AGENT_VERSION,
      protocol: PROTOCOL_VERSION,
      pid: process.pid,
      startedAt: ctx.startedAt,
      hostKey: ctx.hostKey,
      lastSeq: ctx.log.durableSeq,
      capabilities: { ...capabilities(ctx.paths.dir, await ctx.gpus), ...(await ctx.runtimes) },
      teardown: ctx.teardown(),
      socket: resolve(ctx.paths.socket),
    };
  },

  async configure(ctx, req) {
    const job = parseConfigure(req);
    const previous = ctx.job ?? readJobIdentity(ctx.paths.jobJson);
    if (previous && (previous.jobId !== job.jobId || previous.attempt !== job.attempt)) {
      // A new job or attempt on this node may run setup and run again.
      if (!ctx.supervisor.reset()) {
        throw new RequestError(
          'busy',
          `job ${previous.jobId} attempt ${previous.attempt} is still running: cancel it first`,
        );
      }
      rmSync(ctx.paths.envJson, { force: true }); // the new job's setup chooses its own
      ctx.log.append(
        'agent',
        'info',
        `configured job ${job.jobId} attempt ${job.attempt}; earlier phase states cleared`,
      );
      // Another job (not a new attempt of this one, which keeps its checkpoints): the
      // workspace is what was pushed, and the job before's outputs are set aside.
      if (previous.jobId !== job.jobId) {
        const slate = cleanSlate(ctx.paths);
        ctx.metrics.reset(); // its metrics file is gone: the new job's starts empty
        if (slate.removed > 0 || slate.outputSetAside)
          ctx.log.append(
            'agent',
            'info',
            `clean slate for job ${job.jobId}: ${slate.removed} file(s) the job before left in the workspace removed${slate.outputSetAside ? `; its TENDER_OUTPUT set aside in previous-output/` : ''}`,
          );
      }
    }
    // The same job configured again without secretEnv (an app that resumed a run and holds
    // its secrets only redacted) keeps the secrets this daemon already holds.
    const sameJob = ctx.job && ctx.job.jobId === job.jobId && ctx.job.attempt === job.attempt;
    if (sameJob && !('secretEnv' in req)) job.secretEnv = ctx.job!.secretEnv;
    writeJobFile(ctx.paths.jobJson, job);
    ctx.job = job;
    const gpuCount = (await ctx.gpus).gpus.length;
    const notice = droppedKeysNotice(taskEnv(ctx, job, gpuCount).dropped);
    if (notice) ctx.log.append('agent', 'info', notice);
    // Said once per job, never silently ignored: a rule no sample can ever satisfy.
    if (job.gpuIdle && gpuCount === 0 && !sameJob)
      ctx.log.append(
        'agent',
        'info',
        `GPU idle rule (${ruleWords(job.gpuIdle)}) cannot apply: nvidia-smi found no GPU on this node`,
      );
    // What the app reads next (a warm node's states of the job before are gone now): said
    // here, it needs no `status` after.
    return { phases: ctx.supervisor.states() };
  },

  async start(ctx, req) {
    const phase = oneOf(req, 'phase', PHASES) as (typeof PHASES)[number];
    const command = requiredString(req, 'command');
    const started = ctx.supervisor.states()[phase];
    if (started) return { pid: started.pid ?? 0, alreadyStarted: true };
    if (ctx.isShuttingDown) throw new RequestError('shutting_down', 'the agent is shutting down');
    const teardown = ctx.teardown();
    if (teardown) {
      throw new RequestError(
        'shutting_down',
        `the dead-man switch tore this node down (${teardown.reason}): start nothing more here`,
      );
    }
    const job = ctx.job;
    if (!job) {
      throw new RequestError(
        'not_configured',
        'send configure before start (secrets live in memory only: configure again after an agent restart)',
      );
    }
    const hostSetupLeft = ctx.hostSetup.busyText();
    if (hostSetupLeft) {
      throw new RequestError(
        'host_setup_running',
        `host setup is not done: ${hostSetupLeft}; start ${phase} once host_setup.status says drained`,
      );
    }
    try {
      finishPendingApply(ctx.paths); // a job never starts in a half-applied workspace
    } catch (err) {
      throw new RequestError(
        'workspace_incomplete',
        `the last workspace push could not be completed on the node: ${(err as Error).message}`,
      );
    }
    const gpuCount = (await ctx.gpus).gpus.length;
    const redact = createRedactor(Object.values(job.secretEnv));
    const launch = (envDir: string | undefined) => {
      const env = taskEnv(ctx, job, gpuCount, envDir).env;
      loadableEnv(ctx, env, Object.keys(job.secretEnv));
      return {
        command,
        env,
        cwd: ctx.paths.workspace,
        redact,
        ...(phase === 'run' && job.runSetup ? { runSetup: job.runSetup } : {}),
      };
    };
    if (phase === 'setup' && job.setupEnv)
      return startSetupWithEnv(ctx, job.setupEnv, command, launch);
    return ctx.supervisor.start(phase, launch(job.setupEnv ? chosenEnvDir(ctx) : undefined));
  },

  async status(ctx) {
    const cache = await ctx.cache.infoWithin(CACHE_MEASURE_WAIT_MS);
    return {
      phases: ctx.supervisor.states(),
      lastSeq: ctx.log.durableSeq,
      hasWorkspace: existsSync(ctx.paths.workspace),
      teardown: ctx.teardown(),
      ...(cache ? { cache } : {}),
    };
  },

  subscribe(ctx, req, scope) {
    const fromSeq = optionalNumber(req, 'fromSeq') ?? 1;
    scope.subscribe(fromSeq);
    return { lastSeq: ctx.log.durableSeq };
  },

  async cancel(ctx, req) {
    const phase = oneOf(req, 'phase', PHASES, true);
    await ctx.supervisor.cancel(phase, optionalNumber(req, 'graceMs') ?? DEFAULT_GRACE_MS);
    return {};
  },

  async shutdown(ctx, req, scope) {
    await ctx.shutdown(optionalNumber(req, 'graceMs') ?? DEFAULT_GRACE_MS);
    scope.afterResponse(() => ctx.exit());
    return {};
  },

  ping() {
    return {};
  },

  lease(ctx, req) {
    return ctx.deadMan.renew(parseLease(req));
  },

  'host_setup.append'(ctx, req) {
    const teardown = ctx.teardown();
    if (ctx.isShuttingDown || teardown)
      throw new RequestError(
        'shutting_down',
        teardown
          ? `the dead-man switch tore this node down (${teardown.reason}): nothing more runs here`
          : 'the agent is shutting down',
      );
    return ctx.hostSetup.append(parseHostSetupAppend(req));
  },

  'host_setup.status'(ctx) {
    return ctx.hostSetup.status();
  },

  'host_setup.secrets'(ctx, req) {
    return ctx.hostSetup.provideSecrets(stringMap(req, 'env'));
  },

  async 'probe.listen'(ctx, req) {
    const port = portField(req, 'port');
    try {
      await ctx.probe.listen(port, optionalNumber(req, 'ttlMs', 1) ?? PROBE_TTL_MS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new RequestError(
        'port_unavailable',
        code === 'EADDRINUSE'
          ? `port ${port} is in use on this node`
          : `cannot listen on port ${port} here (${code})`,
      );
    }
    return {};
  },

  'probe.connect'(ctx, req) {
    return ctx.probe.connect(
      requiredString(req, 'host'),
      portField(req, 'port'),
      optionalNumber(req, 'timeoutMs', 1) ?? PROBE_CONNECT_MS,
    );
  },

  'probe.close'(ctx, req) {
    ctx.probe.close(portField(req, 'port'));
    return {};
  },

  'outputs.glance'(ctx, req) {
    const paths = req.paths;
    if (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string'))
      throw new RequestError('bad_request', 'paths must be a list of strings');
    return glanceOutputSet(ctx.paths, { paths });
  },
};

/** How long rank 0 listens when nobody says (the app closes it sooner). */
const PROBE_TTL_MS = 60_000;
const PROBE_CONNECT_MS = 10_000;

function portField(req: Fields, key: string): number {
  const v = req[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535)
    throw new RequestError('bad_request', `${key} must be a port from 1 to 65535`);
  return v;
}

/** `source ~/.tender/env` in a shell of the user's loads this environment, secrets left
 *  out (environment/shell-env.ts). A convenience: failing to write it fails nothing. */
function loadableEnv(ctx: DaemonContext, env: Record<string, string>, secretKeys: string[]) {
  try {
    writeShellEnv(ctx.paths.dir, shellEnvScript(env, process.env, secretKeys));
  } catch {
    // a full or read-only disk: the job itself does not need the file
  }
}

function taskEnv(
  ctx: DaemonContext,
  job: NonNullable<DaemonContext['job']>,
  gpuCount: number,
  envDir?: string,
) {
  ensureCacheDir(ctx.paths.cache);
  return buildTaskEnv({
    base: process.env,
    ...job,
    workspace: ctx.paths.workspace,
    output: ctx.paths.output,
    gpuCount,
    cacheDir: ctx.paths.cache,
    metricsFile: ctx.paths.metrics,
    ...(envDir ? { envDir } : {}),
  });
}
