import type { JobSpec } from '../contract';
import type { Datastream } from '../datastream/datastream';
import { initialJobState, type JobState } from '../jobs/job-fsm';
import { NodeJob } from '../jobs/node-job';
import type { PushPlan } from '../jobs/workspace/push';
import type { Ledger } from '../ledger/ledger';
import { hashCacheFile } from '../jobs/workspace/hash-cache';
import type { NodeManifestMemory } from '../jobs/workspace/node-manifest-memory';
import { BootstrapSession } from '../nodes/bootstrap-session';
import { layoutFor } from '../nodes/node-layout';
import { NodeManager } from '../nodes/node-manager';
import type { NodeRecord } from '../nodes/node-record';
import type { NodeEndpoint, Provider } from '../providers/provider';
import { LocalShell } from '../transport/local-shell';
import type { NodeShell } from '../transport/node-shell';
import type { AgentBundle } from './agent-bundle';
import type { NodeRuntime } from './runtime-bundle';
import { crashPoint } from '../base/crash-points';
import { sshConnector } from './ssh-connect';
import { randomId } from '../base/ids';
import { nodeOutputsDir } from '../base/paths';
import { LOCAL_TIMING, type Timing } from './settings';
import type { DeadManWiring } from '../jobs/node-job';
import { budgetDeadline, summarize } from '../money/cost';
import {
  fromAgentRecord,
  inferSelfTeardown,
  renewalFacts,
  renewalParams,
  renewEveryMs,
  selfTeardownText,
  type RenewalInput,
} from '../money/dead-man';

export interface WiringContext {
  home: string;
  ledger: Ledger;
  datastream: Datastream;
  now: () => number;
  timing: Timing;
  agentBundle: () => AgentBundle;
  runtimeFor: (unameM: string) => NodeRuntime | null;
  onNodeChange: (rec: NodeRecord) => void;
  manifestMemory: NodeManifestMemory;
  /** An interactive terminal is open on the node (it is in use: not idle). */
  isNodeInUse?: (nodeId: string) => boolean;
  /** Every NodeManager made is handed here, so the core can stop them all on close. */
  adopt: (manager: NodeManager) => void;
  env: NodeJS.ProcessEnv;
}

/** Opens a shell to a node's endpoint, retrying the connection until `deadlineMs`. */
export function connectorFor(
  ctx: Pick<WiringContext, 'home' | 'ledger' | 'now'>,
  endpoint: NodeEndpoint,
  deadlineMs: number,
  onRetry?: (line: string) => void,
): (signal: AbortSignal) => Promise<NodeShell> {
  if (endpoint.kind === 'local') return async () => new LocalShell(endpoint.dir);
  return sshConnector(endpoint, ctx, deadlineMs, onRetry);
}

/** A dropped link or a bulk channel reconnects within this; the link itself keeps retrying. */
const LINK_CONNECT_DEADLINE_MS = 60_000;

export function timingFor(provider: Provider, base: Timing): Timing {
  return provider.kind === 'local' ? { ...base, ...LOCAL_TIMING } : base;
}

/** A NodeManager for a node record, with its effects wired to this process. */
export function makeNodeManager(
  ctx: WiringContext,
  rec: NodeRecord,
  provider: Provider,
): NodeManager {
  const timing = timingFor(provider, ctx.timing);
  const log = (r: NodeRecord, stream: 'stdout' | 'stderr' | 'info', line: string) =>
    ctx.datastream.append(r.id, 'bootstrap', { source: 'bootstrap', stream, line, ts: ctx.now() });
  // Every stage change is also a line in the node's event stream, in order with the job's
  // own events, so a log reader sees provisioning progress and never a silent wait.
  const keyOf = (r: NodeRecord) =>
    r.stage === 'bootstrap_running'
      ? `${r.stage}/${r.bootstrap?.lastStage}`
      : `${r.stage}/${r.destroyAttempts}`;
  let lastNoted = keyOf(rec);
  const noteStage = (r: NodeRecord) => {
    const key = keyOf(r);
    if (key === lastNoted) return;
    lastNoted = key;
    const line =
      r.stage === 'bootstrap_running' && r.bootstrap
        ? `node ${r.stage}: ${r.bootstrap.lastStage}`
        : r.stage === 'failed'
          ? `node failed: ${r.failedReason ?? 'unknown reason'}`
          : r.stage === 'destroying' && r.lastError
            ? `node destroying (attempt ${r.destroyAttempts + 1}; last error: ${r.lastError})`
            : `node ${r.stage}`;
    ctx.datastream.append(r.id, 'events', { source: 'event', stream: 'info', line, ts: ctx.now() });
  };
  const manager = new NodeManager(rec, {
    ledger: ctx.ledger,
    provider,
    now: ctx.now,
    bootstrap: (r, endpoint, _lease, cb) =>
      new BootstrapSession(
        {
          connect: connectorFor(ctx, endpoint, timing.deadlines.connectMs, (line) =>
            cb.log('stderr', line),
          ),
          layout: layoutFor(endpoint, r.label, ctx.home),
          agentBundle: ctx.agentBundle(),
          runtimeFor: ctx.runtimeFor,
          verify: r.desired.verify,
          agentId: `ag-${randomId(10)}`,
          hostKey: r.desired.hostKey,
          deadlines: timing.deadlines,
        },
        cb,
      ),
    log,
    lastBootstrapSeq: (r) => ctx.datastream.lastSeq(r.id, 'bootstrap'),
    onChange: (r) => {
      noteStage(r);
      ctx.onNodeChange(r);
    },
    crashPoint: (name) => crashPoint(name, ctx.env),
    timing,
  });
  ctx.adopt(manager);
  return manager;
}

export interface JobWiring {
  job: JobSpec;
  jobId: string;
  keep: boolean;
  workspacePlan: () => Promise<PushPlan | null>;
  onChange: () => void;
}

export function makeNodeJob(
  ctx: WiringContext,
  manager: NodeManager,
  provider: Provider,
  w: JobWiring,
  state?: JobState,
): NodeJob {
  const rec = manager.record;
  const outputsDir = nodeOutputsDir(ctx.home, rec.runId, rec.logicalId);
  const timing = timingFor(provider, ctx.timing);
  return new NodeJob(
    rec.id,
    state ??
      initialJobState({
        hasWorkspace: w.job.workspace !== undefined,
        hasSetup: w.job.setup !== undefined,
      }),
    {
      ledger: ctx.ledger,
      datastream: ctx.datastream,
      manager,
      job: w.job,
      jobId: w.jobId,
      keep: w.keep,
      outputsDir,
      hashCacheFile: hashCacheFile(ctx.home),
      manifestMemory: ctx.manifestMemory,
      connect: (endpoint) => connectorFor(ctx, endpoint, LINK_CONNECT_DEADLINE_MS),
      workspacePlan: w.workspacePlan,
      isLeaseGone: async (r) =>
        r.lease ? provider.isGone(r.lease.destroyHandle, new AbortController().signal) : false,
      onChange: w.onChange,
      crashPoint: (name) => crashPoint(name, ctx.env),
      now: ctx.now,
      cancelGraceMs: timing.cancelGraceMs,
      teardownMaxAttempts: timing.teardownMaxAttempts,
      maxBootAttempts: provider.replacesFailedBoots ? timing.maxBootAttempts : 1,
      nextLabel: (attempt) => `${rec.label.replace(/-a\d+$/, '')}-a${attempt}`,
      deadMan: deadManWiring(ctx, manager, provider),
      recordBootFailure: (failed, reason) => {
        if (failed.lease) provider.rememberBootFailure?.(failed.lease, reason);
        const row = ctx.ledger.listLeases().find((l) => l.label === failed.label);
        const hours =
          row?.createdAt && row.destroyedAt ? (row.destroyedAt - row.createdAt) / 3_600_000 : 0;
        ctx.ledger.append({
          ts: ctx.now(),
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
      },
    },
  );
}

/** A node's dead-man switch, wired to the ledger: the run's policy and cost decide what each
 *  renewal says; every acknowledged renewal is remembered so that a later process can tell
 *  why a vanished node destroyed itself. */
function deadManWiring(
  ctx: WiringContext,
  manager: NodeManager,
  provider: Provider,
): DeadManWiring | null {
  const rec = manager.record;
  const policy = ctx.ledger.getRun(rec.runId)?.policy;
  if (!policy) return null;
  const input = (state: {
    inUse: boolean;
    collected: boolean;
    jobEndedAt: number | null;
  }): RenewalInput | null => {
    const r = manager.record;
    const lease = ctx.ledger.getLease(r.label);
    if (!r.lease || !lease?.createdAt) return null;
    const now = ctx.now();
    const cost = summarize(ctx.ledger.leasesOfRun(r.runId), now);
    return {
      policy,
      leaseCreatedAt: lease.createdAt,
      budgetDeadlineAt:
        policy.budgetUsd === null ? null : budgetDeadline(policy.budgetUsd, cost, now),
      ...state,
      teardown: provider.selfTeardown?.(r.lease) ?? { kind: 'remove-files' },
      now,
    };
  };
  return {
    everyMs: renewEveryMs(policy.unreachableGraceMs),
    params: (state) => {
      const i = input(state);
      return i && renewalParams(i);
    },
    onRenewed: (params, state) => {
      const label = manager.record.label;
      const previous = ctx.ledger.getLease(label)?.deadMan ?? null;
      ctx.ledger.setDeadMan(label, renewalFacts(params, ctx.now(), state.jobEndedAt, previous));
    },
    onSelfTeardown: (record) => {
      const label = manager.record.label;
      const facts = ctx.ledger.getLease(label)?.deadMan;
      if (facts) ctx.ledger.setDeadMan(label, { ...facts, selfTeardown: fromAgentRecord(record) });
      ctx.ledger.append({
        ts: ctx.now(),
        runId: rec.runId,
        nodeId: rec.id,
        kind: 'lease.self_teardown',
        data: { cause: record.cause, reason: record.reason, state: record.state },
      });
      return selfTeardownText(record.reason);
    },
    explainLoss: () => {
      const facts = ctx.ledger.getLease(manager.record.label)?.deadMan;
      return facts ? (inferSelfTeardown(facts, ctx.now())?.reason ?? null) : null;
    },
    isNodeInUse: () => ctx.isNodeInUse?.(rec.id) ?? false,
  };
}
