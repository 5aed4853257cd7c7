import type { JobSpec } from '../../contract';
import type { Datastream } from '../../datastream/datastream';
import type { Ledger } from '../../ledger/ledger';
import type { NodeJob } from '../../jobs/node-job/node-job';
import { RunDriver } from '../../jobs/run/run-driver';
import { Gang } from '../../jobs/distributed/gang';
import { RunGuard } from '../../jobs/guards/run-guard';
import type { PushPlan } from '../../jobs/workspace/push';
import { scanWorkspace } from '../../jobs/workspace/scan';
import type { NodeManager } from '../../nodes/node-manager';
import type { NodeRecord } from '../../ledger/node-record';
import type { Provider } from '../../providers/provider';
import type { NodeFactory } from '../nodes/node-factory';

export interface RunAssemblyDeps {
  ledger: Ledger;
  datastream: Datastream;
  now: () => number;
  factory: NodeFactory;
  guardEveryMs: number;
  /** Ask the providers now (the guard does before it stops anything). */
  recheck: () => Promise<unknown>;
  emitNode: (nodeId: string) => void;
  emitRun: (runId: string) => void;
}

export interface RunToAssemble {
  runId: string;
  job: JobSpec;
  keep: boolean;
  /** Rebuild persistent environments even when ready (a run started with --fresh-setup). */
  freshSetup: boolean;
  nodes: NodeRecord[];
  provider: Provider;
  /** Jobs pick up from the phase the ledger recorded (a run another process left). */
  resuming: boolean;
}

export interface AssembledRun {
  driver: RunDriver;
  /** Stops the run's guard; call when the driver is done or dropped. */
  stopGuard: () => void;
}

/** Builds the driver of one run: a NodeManager and a NodeJob per node, sharing one
 *  workspace scan, and the run's policy guard. Starts nothing but the guard. */
export function assembleRun(d: RunAssemblyDeps, r: RunToAssemble): AssembledRun {
  const managers = new Map<string, NodeManager>();
  const jobs = new Map<string, NodeJob>();
  const workspacePlan = sharedWorkspacePlan(r.job);
  const isSweep = d.ledger.listCells(r.runId).length > 0;
  const gang = r.job.distributed ? runGang(d, r, jobs) : undefined;
  for (const rec of r.nodes) {
    const manager = d.factory.manager(rec, r.provider);
    managers.set(rec.id, manager);
    const attempt = r.resuming ? d.ledger.getAttempt(rec.id) : undefined;
    const state = attempt && {
      status: attempt.status,
      phase: attempt.phase,
      exitCode: attempt.exitCode,
      reason: attempt.reason,
      hasWorkspace: r.job.workspace !== undefined,
      hasSetup: r.job.setup !== undefined,
      attempt: attempt.attempt,
      maxRestarts: r.job.recovery?.max_restarts ?? 0,
      recoverOn: r.job.recovery?.on ?? [],
    };
    const wiring = {
      job: r.job,
      agentJobId: `${r.runId}.${rec.logicalId}`,
      keep: r.keep,
      freshSetup: r.freshSetup,
      workspacePlan,
      onChange: () => d.emitNode(rec.id),
      ...(isSweep ? { sweep: { onCellChange: () => d.emitRun(r.runId) } } : {}),
      ...(gang ? { gang: { gang, rank: rankOf(rec.logicalId) } } : {}),
    };
    jobs.set(rec.id, d.factory.job(manager, r.provider, wiring, state));
  }
  const driver = new RunDriver(r.runId, managers, jobs, d.ledger, d.now, () => d.emitRun(r.runId), {
    isSweep,
    ...(gang ? { decide: () => gang.outcome() } : {}),
  });
  const policy = d.ledger.getRun(r.runId)?.policy;
  const guard =
    policy &&
    new RunGuard({
      runId: r.runId,
      policy,
      ledger: d.ledger,
      now: d.now,
      everyMs: d.guardEveryMs,
      recheck: d.recheck,
      stopNode: (nodeId, reason) => jobs.get(nodeId)?.stop(reason),
      note: (line) => {
        for (const id of jobs.keys())
          d.datastream.append(id, 'events', { source: 'event', stream: 'info', line, ts: d.now() });
      },
      onChange: () => d.emitRun(r.runId),
    });
  guard?.start();
  return { driver, stopGuard: () => guard?.stop() };
}

/** A distributed run's gang: ranks in node order (`node-0` is rank 0). */
function runGang(d: RunAssemblyDeps, r: RunToAssemble, jobs: Map<string, NodeJob>): Gang {
  const idOfRank = (rank: number) => r.nodes.find((n) => rankOf(n.logicalId) === rank)?.id;
  return new Gang({
    size: r.nodes.length,
    masterPort: r.job.master_port,
    stopRule: r.job.stop,
    now: d.now,
    note: (line) => {
      for (const n of r.nodes)
        d.datastream.append(n.id, 'events', { source: 'event', stream: 'info', line, ts: d.now() });
    },
    stopRank: (rank, reason) => {
      const id = idOfRank(rank);
      if (id) jobs.get(id)?.stop(reason);
    },
    restartRank: (rank, reason) => {
      const id = idOfRank(rank);
      if (id) jobs.get(id)?.restartWithGang(reason);
    },
  });
}

function rankOf(logicalId: string): number {
  return Number(logicalId.slice(logicalId.lastIndexOf('-') + 1));
}

/** One scan of the workspace for all of a run's nodes, made when the first one asks. */
function sharedWorkspacePlan(job: JobSpec): () => Promise<PushPlan | null> {
  let plan: Promise<PushPlan | null> | null = null;
  return () =>
    (plan ??= job.workspace
      ? scanWorkspace(job.workspace.workdir, job.workspace.exclude).then((s) => ({
          root: s.root,
          dirs: s.dirs,
          files: s.files,
        }))
      : Promise.resolve(null));
}
