// `daemon --dir D`: takes the lock, opens the log, recovers phases, serves the socket.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { writeFileAtomic } from '../atomic-file';
import { type NodePaths, nodePaths } from '../wire/paths';
import type { HostKeyInput } from '../wire/host-key';
import { type AgentInfo, PROTOCOL_VERSION } from '../wire/protocol';
import { AGENT_VERSION } from '../version';
import { probeGpus, probeRuntimes } from './probes/capabilities';
import { Connection } from './socket/connection';
import type { DaemonContext } from './context';
import { setUpDeadMan } from './dead-man/dead-man-setup';
import { GpuSampler, sampleEveryMs } from './telemetry/gpu-sampler';
import { GpuIdleWatch, STOP_GRACE_MS } from './telemetry/gpu-idle-watch';
import { readJobGpuIdle } from './job/job-config';
import { HostSetup } from './host/host-setup';
import type { DeclaredOptions } from './host/host-setup-queue';
import { loadHostIdentity } from './host/host-identity';
import { acquireLock } from './lock';
import { LogStore } from './logs/log-store';
import { MetricsTailer } from './telemetry/metrics-tailer';
import { NodeCache, ensureCacheDir } from './environment/node-cache';
import { recordGroup } from './phases/process-group';
import { createRedactor } from './logs/redact';
import { listen } from './socket/server';
import { shutdownDaemon } from './shutdown';
import { GangProbe } from './probes/gang-probe';
import { Supervisor } from './phases/supervisor';
import { buildHostSetupEnv } from './environment/task-env';
import { watchNodeFolder } from './folder-watch';
import { exitLook } from './phases/exit-look';

/** Grace given to the job when the daemon itself is told to stop (SIGTERM, SIGINT). */
const SIGNAL_GRACE_MS = 5_000;
/** How long the last responses get to reach their clients before the process exits. */
const SOCKET_CLOSE_MS = 1_000;

export interface DaemonOptions {
  dir: string;
  agentId?: string;
  /** What the machine was declared as (the seven fields of the host key). */
  hostDeclaration?: HostKeyInput;
  /** Names and refresh_capabilities of the declaration's host_setup entries (`--host-setup`). */
  hostSetup?: DeclaredOptions[];
}

/** Runs until shutdown; returns the exit code (0 also when another daemon holds D). */
export async function runDaemon(options: DaemonOptions): Promise<number> {
  const paths = nodePaths(options.dir);
  for (const d of [paths.dir, paths.logs, paths.pids, paths.phases])
    mkdirSync(d, { recursive: true });
  const lock = acquireLock(paths.lock, paths.dir);
  if (!lock.isAcquired) {
    process.stderr.write(`already running (pid ${lock.pid})\n`);
    return 0;
  }
  const log = await LogStore.open(paths.logFile, {
    onWriteError: (err) => process.stderr.write(`log write failed, records lost: ${err.message}\n`),
  });
  const host = loadHostIdentity(paths, options.hostDeclaration);
  const listeners: DaemonContext['listeners'] = new Set();
  const cache = new NodeCache(paths.cache);
  const gpuSampler = new GpuSampler({
    log,
    everyMs: sampleEveryMs(process.env),
    nowMono: () => performance.now(),
    now: Date.now,
  });
  const metrics = new MetricsTailer({ path: paths.metrics, log });
  const supervisor = new Supervisor({
    paths,
    log,
    now: Date.now,
    onExiting: (phase) => metrics.end(phase),
    atExit: (phase) => exitLook(paths, phase, ctx.job?.outputs, cache),
    onPhase: (state) => {
      if (state.state === 'running')
        metrics.begin(state.phase, createRedactor(Object.values(ctx.job?.secretEnv ?? {})));
      if (state.state === 'exited') cache.markStale();
      if (state.phase === 'run' && state.state === 'running') gpuSampler.restartIdleClock();
      deadMan.switch.onPhaseChange(state.phase === 'run' && state.state === 'exited');
      for (const l of listeners) l.onPhase(state, log.durableSeq);
    },
  });
  supervisor.recover();
  const deadMan = setUpDeadMan({
    paths,
    log,
    supervisor,
    listeners,
    gpu: gpuSampler,
    ctx: () => ctx,
  });
  // The job's GPU idle rule: configure's, or the one D/job.json kept across a restart.
  const restoredGpuIdle = readJobGpuIdle(paths.jobJson);
  const gpuIdle = new GpuIdleWatch({
    log,
    rule: () => (ctx.job ? ctx.job.gpuIdle : restoredGpuIdle),
    // As for the dead-man switch's GPU-idle rule: only the run phase, never during a
    // host-setup entry (a driver install idles the GPUs by nature).
    isRunPhaseRunning: () =>
      supervisor.states().run?.state === 'running' && ctx.hostSetup.isDrained(),
    idleSince: (threshold) => gpuSampler.idle.belowSince(threshold),
    nowMono: () => performance.now(),
    now: Date.now,
    stopJob: (reason) => void supervisor.cancel('run', STOP_GRACE_MS, reason),
    isDeadManArmed: () => deadMan.switch.isArmed(),
    fireDeadMan: (firing) => deadMan.switch.fireNow(firing),
    flushLog: () => log.flush(),
  });
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));
  const sockets = new Set<Socket>();
  const hostSetup = new HostSetup({
    dir: paths.hostSetup,
    pidsDir: paths.pids,
    log,
    now: Date.now,
    cwd: paths.dir,
    env: () => {
      ensureCacheDir(paths.cache);
      return buildHostSetupEnv(process.env, paths.cache);
    },
    jobSecrets: () => Object.values(ctx.job?.secretEnv ?? {}),
    refreshCapabilities: async () => {
      ctx.gpus = probeGpus();
      ctx.runtimes = probeRuntimes();
      const { gpus } = await ctx.gpus;
      if (!ctx.isShuttingDown) gpuSampler.setEnabled(gpus.length > 0);
      return `capabilities re-probed: ${gpus.length} GPU(s)${gpus.length ? ` (${gpus.map((g) => g.name).join(', ')})` : ''}`;
    },
    mayStart: () => !ctx.isShuttingDown && !ctx.teardown(),
    onChange: () => {
      cache.markStale();
      deadMan.switch.onPhaseChange();
    },
  });
  const probe = new GangProbe();
  const ctx: DaemonContext = {
    paths,
    agentId: options.agentId ?? previousAgentId(paths) ?? randomUUID(),
    hostKey: host.key,
    hostDeclaration: host.declaration,
    startedAt: Date.now(),
    log,
    supervisor,
    gpus: probeGpus(),
    runtimes: probeRuntimes(),
    hostSetup,
    cache,
    metrics,
    probe,
    job: undefined,
    listeners,
    deadMan: deadMan.switch,
    teardown: deadMan.record,
    isShuttingDown: false,
    shutdown: (graceMs) => {
      deadMan.switch.disarm();
      gpuIdle.stop();
      gpuSampler.stop();
      metrics.stop();
      probe.closeAll();
      return shutdownDaemon(ctx, { server, lock, graceMs });
    },
    exit: () => {
      // Let the last responses reach their clients, but do not wait on a client forever.
      const timer = setTimeout(() => resolveExit(0), SOCKET_CLOSE_MS);
      const check = () => sockets.size === 0 && (clearTimeout(timer), resolveExit(0));
      for (const s of sockets) s.once('close', check).end();
      check();
    },
  };
  const server = await listen(paths.socket, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    new Connection(socket, ctx);
  });
  const info: AgentInfo = {
    pid: process.pid,
    agentId: ctx.agentId,
    version: AGENT_VERSION,
    protocol: PROTOCOL_VERSION,
    startedAt: ctx.startedAt,
    socket: paths.socket,
  };
  writeFileAtomic(paths.agentJson, `${JSON.stringify(info)}\n`);
  recordGroup(paths.pids, process.pid); // started by `start`, the daemon leads its own group
  log.append('agent', 'info', `agent ${AGENT_VERSION} started (pid ${process.pid})`);
  deadMan.resume();
  // Sampled only where nvidia-smi found a GPU: none at all elsewhere.
  void ctx.gpus.then(({ gpus }) => {
    if (!ctx.isShuttingDown) gpuSampler.setEnabled(gpus.length > 0);
  });
  gpuIdle.start();
  hostSetup.recover();
  hostSetup.seed(ctx.hostDeclaration?.host_setup ?? [], options.hostSetup ?? []);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => void ctx.shutdown(SIGNAL_GRACE_MS).then(() => ctx.exit()));
  }
  process.on('SIGHUP', () => {}); // a closing terminal or SSH session must not stop the job
  watchNodeFolder(paths.dir, () => {
    process.stderr.write(`${paths.dir} was removed: stopping the job and exiting\n`);
    void ctx.shutdown(SIGNAL_GRACE_MS).then(() => ctx.exit());
  });
  // A bug in one request must not orphan a running job: report it and keep supervising.
  process.on('uncaughtException', (err) =>
    process.stderr.write(`uncaught: ${err.stack ?? err.message}\n`),
  );
  process.on('unhandledRejection', (err) =>
    process.stderr.write(`unhandled rejection: ${String(err)}\n`),
  );
  return exited;
}

function previousAgentId(paths: NodePaths): string | undefined {
  try {
    return (JSON.parse(readFileSync(paths.agentJson, 'utf8')) as AgentInfo).agentId || undefined;
  } catch {
    return undefined;
  }
}
