import type { Phase } from '../../../src-agent/wire/protocol';
import type { Gang, GangStart } from '../distributed/gang';
import { peerAddress } from '../distributed/peer-address';
import type { AgentRequest } from '../host/host-setup-wait';
import type { JobEvent } from '../fsm/job-fsm';
import { gpuIdleRuleText, nodeNameOf } from '../../contract';
import { shapeImage } from '../host/setup-env-request';
import { journalNodeCache } from '../host/node-cache-journal';
import { CellServer, type SweepWiring } from '../sweep/cell-server';
import type { Attempt } from './attempt';
import { drainLogs, type JobHost, transfersOf } from './job-host';
import type { JobLink } from './job-link';
import { AgentRequestError } from '../../nodes/agent-client';
import { pullCheckpointsNow, pullWhileRunning } from './node-transfers';
import { glanceAhead } from '../outputs/glance';
import { beginPrelude, configureAgent } from './prelude';

// A node's job's setup and run phases on its agent: its prelude (prelude.ts: host setup
// awaited, the agent configured; a distributed rank's with its gang's environment once the
// gang is there), the phase started and its
// exit awaited with the periodic pulls beside the run; a sweep node serves cells instead.

/** Runs `phase` to its exit; null when the job moved on meanwhile (a stop, a loss). */
export async function runPhase(
  h: JobHost,
  phase: Phase,
  opts: { isResumedInRun: boolean },
): Promise<JobEvent | null> {
  const attempt = h.attempt;
  const link = attempt.link();
  const { job } = h.deps;
  const request: AgentRequest = (op, params, ms) => link.request(op, params, ms);
  const gang = phase === 'run' ? h.deps.gang : undefined;
  // Begun while the workspace was pushed (a node made for this job), or now.
  const pre = attempt.takePrelude(phase) ?? beginPrelude(h, phase, () => h.current.phase === phase);
  const host = await pre.host;
  // A declared host setup entry that failed fails the job, and the node stays.
  if (host?.kind === 'stopped') return null;
  if (host?.kind === 'failed') return { type: 'NodeFault', reason: host.reason };
  if (phase === 'run' && h.deps.sweep) return serveCells(h, attempt, h.deps.sweep);
  const rank = gang ? await arriveInGang(h, gang, link, opts.isResumedInRun) : null;
  if (rank?.kind === 'stopped') return null; // the gang stops this rank with its reason
  if (phase === 'run' && !opts.isResumedInRun) noteGpuIdleRule(h);
  const phases = await (pre.configured ??
    configureAgent(h, rank?.kind === 'go' ? rank.env : undefined));
  attempt.phases.reset(Object.values(phases));
  if (gang && rank?.kind === 'go') {
    // Every rank configured, then all start together.
    if ((await gang.gang.configured(gang.rank)).kind === 'stopped') return null;
    gang.gang.markStart(gang.rank);
  }
  const command = phase === 'setup' ? job.setup! : job.run;
  const exited = attempt.phases.exited(phase);
  await startPhase(h, attempt, link, phase, command);
  if (phase === 'run') {
    h.markRunStarted();
    h.deps.crashPoint('job-running');
    openForwards(h);
  }
  const pulls = phase === 'run' ? pullWhileRunning(h, attempt) : null;
  const st = await exited.finally(() => pulls?.stop());
  // The final collection's first look, and the node's cache size, as the exit state says
  // them (an older agent's are asked beside the drain: one round trip for all three).
  if (phase === 'run') attempt.glanceAhead = glanceAhead(link, job.outputs, h.deps.outputsDir, st);
  const at = { runId: h.deps.manager.record.runId, nodeId: h.nodeId, now: h.deps.now };
  const journaled = phase === 'run' ? journalNodeCache(h.deps.ledger, request, at, st) : null;
  await drainLogs(h, link, st.seq);
  // The checkpoints as the run left them (a recovery after a nonzero exit resumes there).
  if (phase === 'run' && job.checkpoints) await pullCheckpointsNow(h, attempt, job.checkpoints);
  await journaled;
  const exit = { code: st.code, signal: st.signal };
  if (phase === 'setup') return { type: 'SetupExited', ...exit };
  return { type: 'JobExited', ...exit, ...(st.stoppedBy ? { stoppedBy: st.stoppedBy } : {}) };
}

/** This rank is set up: wait for the others and the pre-flight (distributed/gang.ts). A
 *  rank whose run already started (picked up after a detach) waits for nobody. */
async function arriveInGang(
  h: JobHost,
  g: { gang: Gang; rank: number },
  link: JobLink,
  isResumedInRun: boolean,
): Promise<GangStart | { kind: 'resumed' }> {
  // Only a job picked up mid-run can find its run started: a warm node reports the job
  // before's phases until this one is configured.
  if (isResumedInRun && (await link.request('status', {})).phases.run) {
    g.gang.markResumed(g.rank);
    return { kind: 'resumed' };
  }
  const rec = h.deps.manager.record;
  if (!rec.connection) throw new Error(`node ${rec.id} has no endpoint`);
  const gpus = Number(rec.agent?.capabilities['gpu.count'] ?? 0);
  return g.gang.arrive({
    rank: g.rank,
    request: (op, params, ms) => link.request(op, params, ms),
    address: peerAddress(rec.connection),
    gpus: Number.isFinite(gpus) ? gpus : 0,
  });
}

/** At launch, the run's GPU idle rule where it cannot apply: a node without GPUs. */
function noteGpuIdleRule(h: JobHost): void {
  const rule = h.deps.gpuIdle;
  if (!rule) return;
  const gpus = Number(h.deps.manager.record.agent?.capabilities['gpu.count'] ?? 0);
  if (gpus > 0) return;
  h.note(
    `warning: ${gpuIdleRuleText(rule)} cannot apply on ${nodeNameOf(h.nodeId)}: nvidia-smi found no GPU there`,
  );
}

/** The job's `ports` and `remote_ports`, once its run has started (a failure to open
 *  one is noted; the job goes on). */
function openForwards(h: JobHost): void {
  const { job, forwards } = h.deps;
  if (!forwards || (job.ports.length === 0 && job.remote_ports.length === 0)) return;
  void forwards
    .open(h.nodeId, job.ports, job.remote_ports)
    .catch((err: Error) => h.note(`port forwards not opened: ${err.message}`));
}

/** A sweep node's run phase: cell after cell until the queue is empty (then the node's
 *  job has exited well, whatever its cells did) or the node stops serving. */
async function serveCells(
  h: JobHost,
  attempt: Attempt,
  sweep: SweepWiring,
): Promise<JobEvent | null> {
  const isServing = () =>
    !h.isDetached && h.current.phase === 'run' && h.current.attempt === attempt.n;
  const server = new CellServer(
    {
      runId: h.deps.manager.record.runId,
      nodeId: h.nodeId,
      job: h.deps.job,
      image: shapeImage(h.deps.manager.record.desired.shape),
      ...(h.deps.gpuIdle ? { gpuIdle: h.deps.gpuIdle } : {}),
      link: () => attempt.link(),
      phases: attempt.phases,
      transfers: () => transfersOf(h, attempt),
      isServing,
      lastSeq: () => h.deps.datastream.lastSeq(h.nodeId, 'agent'),
      drain: (link) => drainLogs(h, link),
      note: h.note,
      now: h.deps.now,
      onRunStarted: () => {
        attempt.jobEndedAt = null;
        h.markRunStarted();
        h.deps.crashPoint('job-running');
      },
    },
    sweep,
  );
  attempt.cells = server;
  noteGpuIdleRule(h);
  openForwards(h);
  await server.serve();
  return isServing() ? { type: 'JobExited', code: 0, signal: null } : null;
}

/** Cancels what runs on the node and waits for it to exit and its last lines. */
export async function cancelPhases(h: JobHost): Promise<null> {
  const attempt = h.attempt;
  if (!attempt.hasLink) return null;
  const link = attempt.link();
  const running = attempt.phases.running();
  await link.request('cancel', { graceMs: h.deps.cancelGraceMs });
  await Promise.all(running.map((p) => attempt.phases.exited(p)));
  await drainLogs(h, link);
  return null;
}

/** Between two starts of a setup whose environment another job on the machine is building. */
const ENV_LOCK_LOOK_MS = 1_000;

/** Starts `phase`. A setup whose environment another job on this machine is building (two
 *  local nodes, two jobs on one host: the same key) waits for that build and starts again:
 *  skipped once it is ready, built here if that build failed. */
async function startPhase(
  h: JobHost,
  attempt: Attempt,
  link: JobLink,
  phase: Phase,
  command: string,
): Promise<void> {
  for (let waited = false; ; waited = true) {
    try {
      return void (await link.request('start', { phase, command }));
    } catch (err) {
      const locked = err instanceof AgentRequestError && err.code === 'env_locked';
      if (!locked || attempt.isDisposed) throw err;
      if (!waited) h.note(`${err.message.replace(/: start setup again.*$/, '')}: waiting for it`);
      await new Promise((r) => setTimeout(r, ENV_LOCK_LOOK_MS));
    }
  }
}
