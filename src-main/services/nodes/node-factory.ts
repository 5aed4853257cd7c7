import type { ShellPool } from '../../transport/shell-pool';
import type { PreparedNode } from '../../jobs/node-job/node-job-deps';
import type { GpuIdleRule, JobSpec } from '../../contract';
import type { Datastream } from '../../datastream/datastream';
import { initialJobState, type JobState } from '../../jobs/fsm/job-fsm';
import { leaseCost } from '../../contract/billing';
import { TENDER_VERSION } from '../../base/version';
import {
  buildReceipt,
  type ReceiptFacts,
  writeReceipt,
  writeWorkspaceListing,
} from '../../jobs/run/receipt-writer';
import { NodeJob, type NodeJobDeps } from '../../jobs/node-job/node-job';
import type { PushPlan } from '../../jobs/workspace/push';
import type { Ledger } from '../../ledger/ledger';
import { hashCacheFile } from '../../jobs/workspace/hash-cache';
import { linkRatesFile } from '../../jobs/workspace/link-rates';
import type { NodeManifestMemory } from '../../jobs/workspace/node-manifest-memory';
import { pullNoter } from './pull-notes';
import { BootstrapSession } from '../../nodes/bootstrap-session';
import { NodeManager } from '../../nodes/node-manager';
import type { NodeRecord } from '../../ledger/node-record';
import { allocationOf } from '../../providers/allocation';
import type { NodeEndpoint, Provider } from '../../providers/provider';
import type { AgentBundle } from '../../nodes/agent-bundle';
import type { NodeRuntime } from '../../nodes/runtime-bundle';
import { crashPoint } from '../../base/crash-points';
import { type ConnectOptions, connectorFor } from '../../nodes/ssh-connect';
import { leaseLabel } from '../../base/ids';
import { bootstrapSpec } from './bootstrap-spec';
import { cellOutputsDir, nodeOutputsDir, runDir } from '../../base/paths';
import type { SweepWiring } from '../../jobs/sweep/cell-server';
import type { Gang } from '../../jobs/distributed/gang';
import type { Timing } from '../settings/timing';
import { deadManWiring } from './dead-man-wiring';

export interface NodeFactoryDeps {
  home: string;
  ledger: Ledger;
  datastream: Datastream;
  now: () => number;
  /** The timing in force now (Settings may change it between runs). */
  timing: () => Timing;
  agentBundle: () => AgentBundle;
  runtimeFor: (unameM: string) => NodeRuntime | null;
  onNodeChange: (rec: NodeRecord) => void;
  manifestMemory: NodeManifestMemory;
  /** An interactive terminal is open on the node (it is in use: not idle). */
  isNodeInUse: (nodeId: string) => boolean;
  env: NodeJS.ProcessEnv;
  /** A secret the run's pool names by variable, for its leases' creates (the image's
   *  registry login): services/runs/pool-secrets.ts. Default: the environment. */
  poolSecret?: (runId: string, name: string) => string | undefined;
  /** Opens / closes a node's declared port forwards (services/forwards). */
  forwards?: NodeJobDeps['forwards'];
  /** ssh connections kept between their users (transport/shell-pool.ts). */
  shellPool?: ShellPool;
}

export interface JobWiring {
  job: JobSpec;
  /** The job's id on the node's agent and in its receipt (NodeJobDeps.agentJobId). */
  agentJobId: string;
  keep: boolean;
  freshSetup: boolean;
  workspacePlan: () => Promise<PushPlan | null>;
  onChange: () => void;
  /** A sweep: the node serves the run's cells; `onCellChange` sends the run's view. */
  sweep?: { onCellChange: () => void };
  /** A distributed run: the node is rank `rank` of the gang. */
  gang?: { gang: Gang; rank: number };
}

/** A dropped link or a bulk channel reconnects within this; the link itself keeps retrying. */
const LINK_CONNECT_DEADLINE_MS = 60_000;

/** The timing for one provider's nodes: the defaults, with the provider's own polling. */
export function timingFor(provider: Provider, base: Timing): Timing {
  return provider.polling ? { ...base, ...provider.polling } : base;
}

/** Makes the NodeManagers and NodeJobs of this process, with their effects wired to it, and
 *  keeps every manager it made so that none acts after `stopAll`. */
export class NodeFactory {
  private readonly managers = new Set<NodeManager>();
  /** Per node: who hears that its agent's files are in place (the job's early push). */
  private readonly prepared = new Map<string, (p: PreparedNode) => void>();

  constructor(private readonly d: NodeFactoryDeps) {}

  /** Opens a shell to a node's endpoint, retrying the connection until `deadlineMs`. */
  connector(endpoint: NodeEndpoint, deadlineMs: number, opts: ConnectOptions = {}) {
    return connectorFor(this.d, endpoint, deadlineMs, opts);
  }

  /** A NodeManager for a node record. */
  manager(rec: NodeRecord, provider: Provider): NodeManager {
    const ctx = this.d;
    const timing = timingFor(provider, ctx.timing());
    const log = (r: NodeRecord, stream: 'stdout' | 'stderr' | 'info', line: string) =>
      ctx.datastream.append(r.id, 'bootstrap', {
        source: 'bootstrap',
        stream,
        line,
        ts: ctx.now(),
      });
    const noteEvent = (r: NodeRecord, line: string) =>
      ctx.datastream.append(r.id, 'events', {
        source: 'event',
        stream: 'info',
        line,
        ts: ctx.now(),
      });
    const noteStage = stageNoter(rec, noteEvent);
    const notePull = pullNoter(ctx.now, noteEvent);
    const manager = new NodeManager(rec, {
      ledger: ctx.ledger,
      provider,
      now: ctx.now,
      onPull: (r, pull) => {
        notePull(r, pull);
        ctx.onNodeChange(r); // the view carries the pull (NodeView.pull)
      },
      bootstrap: (r, endpoint, _lease, cb) =>
        new BootstrapSession(
          bootstrapSpec(
            ctx,
            r,
            endpoint,
            timing,
            (opts) => this.connector(endpoint, timing.deadlines.connectMs, opts),
            (line) => cb.log('stderr', line),
          ),
          {
            ...cb,
            prepared: (address, share, serveCommand) =>
              this.prepared.get(r.id)?.({ label: r.label, endpoint, address, share, serveCommand }),
          },
        ),
      log,
      lastBootstrapSeq: (r) => ctx.datastream.lastSeq(r.id, 'bootstrap'),
      onChange: (r) => {
        noteStage(r);
        ctx.onNodeChange(r);
      },
      crashPoint: (name) => crashPoint(name, ctx.env),
      secret: (name) =>
        ctx.poolSecret ? ctx.poolSecret(rec.runId, name) : ctx.env[name] || undefined,
      timing,
    });
    this.managers.add(manager);
    return manager;
  }

  /** Stops a manager that has nothing left to do and forgets it. */
  release(manager: NodeManager): void {
    manager.stop();
    this.managers.delete(manager);
  }

  /** No manager made here acts after this (a destroy still retrying included). */
  stopAll(): void {
    for (const m of this.managers) m.stop();
    this.managers.clear();
  }

  /** The NodeJob that runs a job on a manager's node. */
  job(manager: NodeManager, provider: Provider, w: JobWiring, state?: JobState): NodeJob {
    const ctx = this.d;
    const rec = manager.record;
    const outputsDir = nodeOutputsDir(ctx.home, rec.runId, rec.logicalId);
    const timing = timingFor(provider, ctx.timing());
    return new NodeJob(
      rec.id,
      state ??
        initialJobState({
          // Materializing also restores a recovered attempt's checkpoints.
          hasWorkspace: w.job.workspace !== undefined || w.job.checkpoints !== undefined,
          hasSetup: w.job.setup !== undefined,
          maxRestarts: w.job.recovery?.max_restarts ?? 0,
          recoverOn: w.job.recovery?.on ?? [],
        }),
      {
        ledger: ctx.ledger,
        datastream: ctx.datastream,
        manager,
        job: w.job,
        agentJobId: w.agentJobId,
        keep: w.keep,
        freshSetup: w.freshSetup,
        outputsDir,
        hashCacheFile: hashCacheFile(ctx.home),
        linkRatesFile: linkRatesFile(ctx.home),
        manifestMemory: ctx.manifestMemory,
        connect: (endpoint) => this.connector(endpoint, LINK_CONNECT_DEADLINE_MS),
        connectLight: (endpoint) =>
          this.connector(endpoint, LINK_CONNECT_DEADLINE_MS, { light: true }),
        onAgentPrepared: (listener) => {
          this.prepared.set(rec.id, listener);
          return () => {
            if (this.prepared.get(rec.id) === listener) this.prepared.delete(rec.id);
          };
        },
        workspacePlan: w.workspacePlan,
        ...(provider.whyGone
          ? {
              whyLeaseGone: async (r: NodeRecord) =>
                r.lease ? provider.whyGone!(r.lease, new AbortController().signal) : null,
            }
          : {}),
        // A node inside an allocation: its files, read through the gateway that outlives it.
        afterEndShell: async (r: NodeRecord) => {
          const inside = r.connection ? allocationOf(r.connection) : null;
          if (inside === null) return null;
          return this.connector(
            inside.gateway,
            LINK_CONNECT_DEADLINE_MS,
          )(AbortSignal.timeout(LINK_CONNECT_DEADLINE_MS));
        },
        isLeaseGone: async (r) =>
          r.lease ? provider.isGone(r.lease.destroyHandle, new AbortController().signal) : false,
        leaseInterruption: (r) => ctx.ledger.getLease(r.label)?.interruption ?? null,
        onChange: w.onChange,
        crashPoint: (name) => crashPoint(name, ctx.env),
        now: ctx.now,
        cancelGraceMs: timing.cancelGraceMs,
        teardownMaxAttempts: timing.teardownMaxAttempts,
        maxBootAttempts: provider.replacesFailedBoots ? timing.maxBootAttempts : 1,
        // From this run's own label: a claimed warm node carries the label of the run that
        // rented it, and a replacement must be this run's.
        nextLabel: (attempt) =>
          `${leaseLabel(ctx.ledger.installId(), rec.runId, rec.logicalId)}-a${attempt}`,
        deadMan: deadManWiring(ctx, manager, provider),
        ...gpuIdleOf(ctx.ledger.getRun(rec.runId)?.policy?.gpuIdle),
        recordBootFailure: (failed, reason) => this.recordBootFailure(provider, failed, reason),
        recordLostHost: (lost, reason) => {
          if (lost.lease) provider.rememberBootFailure?.(lost.lease, `lost mid-run: ${reason}`);
          ctx.ledger.append({
            ts: ctx.now(),
            runId: lost.runId,
            nodeId: lost.id,
            kind: 'lease.host_lost',
            data: {
              leaseId: lost.lease?.leaseId ?? null,
              machine: lost.lease?.metadata.machine_id ?? null,
              reason,
            },
          });
        },
        ...(w.sweep ? { sweep: this.sweepWiring(manager, w, w.sweep.onCellChange) } : {}),
        ...(w.gang ? { gang: w.gang } : {}),
        ...(ctx.forwards ? { forwards: ctx.forwards } : {}),
        recordReceipt: (facts) => {
          const node = manager.record;
          const now = ctx.now();
          const leases = ctx.ledger.leasesOfRun(node.runId).filter((l) => l.nodeId === node.id);
          this.fileReceipt(node, outputsDir, now, {
            ...facts,
            runId: node.runId,
            jobId: w.agentJobId,
            job: w.job,
            startedAt: ctx.ledger.getRun(node.runId)?.createdAt ?? now,
            costUsd: leases.reduce((sum, l) => sum + leaseCost(l, now), 0),
          });
        },
      },
    );
  }

  /** How a sweep's node takes cells and files what each one did. */
  private sweepWiring(manager: NodeManager, w: JobWiring, onCellChange: () => void): SweepWiring {
    const ctx = this.d;
    const runId = manager.record.runId;
    return {
      ledger: ctx.ledger,
      cellOutputsDir: (cellId) => cellOutputsDir(ctx.home, runId, cellId),
      onCellChange,
      maxRestarts: w.job.recovery?.max_restarts ?? 0,
      recoverOn: w.job.recovery?.on ?? [],
      recordCellReceipt: (cell, facts) => {
        const node = manager.record;
        const now = ctx.now();
        this.fileReceipt(
          node,
          cellOutputsDir(ctx.home, runId, cell.id),
          now,
          {
            runId,
            jobId: `${runId}.${cell.id}`,
            job: { ...w.job, params: { ...w.job.params, ...cell.values } },
            state: facts,
            pulled: facts.pulled,
            startedAt: cell.startedAt ?? now,
            // The node's rate over the cell's time (a sweep's nodes serve many cells).
            costUsd: cellCost(ctx.ledger, node, cell.startedAt ?? now, now),
            cell: { id: cell.id, values: cell.values },
            ...(cell.cacheKey ? { cache: { key: cell.cacheKey, hit: null } } : {}),
          },
          { cell: cell.id },
        );
      },
    };
  }

  /** Writes a finished job's receipt beside its outputs — with the workspace the node was
   *  last given, whose file list the run keeps once — and journals it. */
  private fileReceipt(
    node: NodeRecord,
    outputsDir: string,
    now: number,
    facts: Omit<ReceiptFacts, 'node' | 'workspace' | 'endedAt' | 'tenderVersion' | 'installId'>,
    journal: Record<string, unknown> = {},
  ): void {
    const ctx = this.d;
    const m = ctx.manifestMemory.get(node.label);
    if (m) writeWorkspaceListing(runDir(ctx.home, node.runId), m.digest, m.files);
    const file = writeReceipt(
      outputsDir,
      buildReceipt({
        ...facts,
        node,
        workspace: m ? { manifest: m.digest, files: m.files.size } : null,
        endedAt: now,
        tenderVersion: TENDER_VERSION,
        installId: ctx.ledger.installId(),
      }),
    );
    ctx.ledger.append({
      ts: now,
      runId: node.runId,
      nodeId: node.id,
      kind: 'job.receipt',
      data: { file, ...journal },
    });
  }

  /** A lease failed to boot and was destroyed: its host is remembered, its cost journaled. */
  private recordBootFailure(provider: Provider, failed: NodeRecord, reason: string): void {
    const { ledger, now } = this.d;
    if (failed.lease) provider.rememberBootFailure?.(failed.lease, reason);
    const row = ledger.listLeases().find((l) => l.label === failed.label);
    const hours =
      row?.createdAt && row.destroyedAt ? (row.destroyedAt - row.createdAt) / 3_600_000 : 0;
    ledger.append({
      ts: now(),
      runId: failed.runId,
      nodeId: failed.id,
      kind: 'lease.boot_failed',
      data: {
        leaseId: failed.lease?.leaseId ?? null,
        machine: failed.lease?.metadata.machine_id ?? null,
        reason,
        costUsd: Math.round((row?.pricePerHour ?? 0) * hours * 10_000) / 10_000,
      },
    });
  }
}

/** Every stage change is also a line in the node's event stream, in order with the job's
 *  own events, so a log reader sees provisioning progress and never a silent wait. */
function stageNoter(
  initial: NodeRecord,
  write: (r: NodeRecord, line: string) => void,
): (r: NodeRecord) => void {
  const keyOf = (r: NodeRecord) =>
    r.stage === 'bootstrap_running'
      ? `${r.stage}/${r.bootstrap?.lastStage}`
      : `${r.stage}/${r.destroyAttempts}`;
  let lastNoted = keyOf(initial);
  return (r) => {
    const key = keyOf(r);
    if (key === lastNoted) return;
    lastNoted = key;
    write(
      r,
      r.stage === 'bootstrap_running' && r.bootstrap
        ? `node ${r.stage}: ${r.bootstrap.lastStage}`
        : r.stage === 'failed'
          ? `node failed: ${r.failedReason ?? 'unknown reason'}`
          : r.stage === 'destroying' && r.lastError
            ? `node destroying (attempt ${r.destroyAttempts + 1}; last error: ${r.lastError})`
            : `node ${r.stage}`,
    );
  };
}

/** What the node's lease billed between `from` and `to`. */
function cellCost(ledger: Ledger, node: NodeRecord, from: number, to: number): number {
  const lease = ledger.getLease(node.label);
  return lease ? leaseCost(lease, to, from, to) : 0;
}

function gpuIdleOf(rule: GpuIdleRule | undefined): { gpuIdle?: GpuIdleRule } {
  return rule ? { gpuIdle: rule } : {};
}
