import type {
  LeasePolicy,
  LeaseView,
  NodeGpu,
  NodePull,
  NodeStage,
  NodeView,
  RunView,
} from '../../contract';
import { BUDGET_WARNING } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import type { LeaseRow, RunRow } from '../../ledger/rows';
import type { NodeRecord } from '../../ledger/node-record';
import type { Timing } from '../settings/timing';
import { leaseCost, summarize } from '../../money/cost';
import type { GpuSummaryFacts } from './gpu-samples';
import { STALL_UTIL_BELOW } from './stall-rule';
import { lastGpuIdleFiring } from './gpu-idle-firings';

export type LinkState = 'none' | 'connected' | 'lost';
export type LinkStateOf = (nodeId: string) => LinkState;
/** What a provisioning lease's provider says, for the nodes this process drives. */
export type PullOf = (nodeId: string) => NodePull | null;
/** A node's GPU summary from the samples this process holds (gpu-samples.ts). */
export type GpuOf = (nodeId: string, facts: GpuSummaryFacts) => NodeGpu | null;

/** Stages in which a node's agent runs: only they show GPU samples. */
const AGENT_UP: ReadonlySet<NodeStage> = new Set(['agent_joined', 'handed_off', 'dormant']);

export function isAgentUp(stage: NodeStage): boolean {
  return AGENT_UP.has(stage);
}

/** The node with its GPU summary (`gpu`), judged by the run's idle threshold. */
export function withGpu(node: NodeView, policy: LeasePolicy | null, gpuOf: GpuOf): NodeView {
  if (!isAgentUp(node.stage)) return { ...node, gpu: null };
  const isJobRunning =
    node.jobStatus === 'running' && (node.jobPhase === 'setup' || node.jobPhase === 'run');
  const utilBelow = policy?.idleGpuUtilBelow ?? STALL_UTIL_BELOW;
  return { ...node, gpu: gpuOf(node.id, { isJobRunning, utilBelow }) };
}

/** Every node of the run with its GPU summary. */
export function runWithGpu(run: RunView, gpuOf: GpuOf): RunView {
  return { ...run, nodes: run.nodes.map((n) => withGpu(n, run.policy, gpuOf)) };
}

export function nodeView(
  ledger: Ledger,
  rec: NodeRecord,
  linkState: LinkStateOf,
  timing: Timing,
  createdAt: number,
  pullOf?: PullOf,
): NodeView {
  const pull = pullOf?.(rec.id) ?? null;
  const attempt = ledger.getAttempt(rec.id);
  const history = ledger.stageHistory(rec.id) as NodeView['stages'];
  const stages = history.length > 0 ? history : [{ stage: rec.stage, at: createdAt }];
  if (stages[0]!.stage === 'new')
    stages[0] = { stage: 'new', at: Math.min(createdAt, stages[0]!.at) };
  return {
    id: rec.id,
    runId: rec.runId,
    logicalId: rec.logicalId,
    provider: rec.desired.provider,
    stage: rec.stage,
    ready: rec.ready,
    bootstrapStage: rec.bootstrap?.lastStage ?? null,
    leaseId: rec.lease?.leaseId ?? null,
    label: rec.label,
    agentId: rec.agent?.agentId ?? null,
    capabilities: rec.agent?.capabilities ?? null,
    failedReason: rec.failedReason,
    destroyReason: rec.destroyReason,
    jobStatus: attempt?.status ?? null,
    jobPhase: attempt?.phase ?? null,
    exitCode: attempt?.exitCode ?? null,
    cacheBytes: latestCacheBytes(ledger, rec),
    linkState: linkState(rec.id),
    updatedAt: rec.stageSince,
    stageSince: rec.stageSince,
    stages,
    // A pull that moves pushes the lease's deadline on (nodes/pull-watch.ts).
    deadlineAt: pull?.givesUpAt ?? stageDeadline(rec.stage, rec.stageSince, timing),
    claimedFrom: rec.claimedFrom
      ? { runId: rec.claimedFrom.runId, nodeId: rec.claimedFrom.nodeId }
      : null,
    releasedTo: rec.releasedTo ?? null,
    gpuIdleFired: lastGpuIdleFiring(ledger, rec.id),
    pull,
  };
}

/** The machine's TENDER_CACHE size from the node's latest `node.cache` journal event
 *  (journaled after each run, jobs/host/node-cache-journal.ts). */
function latestCacheBytes(ledger: Pick<Ledger, 'journal'>, rec: NodeRecord): number | null {
  const events = ledger.journal(rec.runId);
  const last = events.filter((e) => e.kind === 'node.cache' && e.nodeId === rec.id).at(-1);
  return typeof last?.data.bytes === 'number' ? last.data.bytes : null;
}

/** When the current stage gives up, from the timing the node runs under. */
export function stageDeadline(stage: NodeStage, since: number, timing: Timing): number | null {
  const d = timing.deadlines;
  switch (stage) {
    case 'lease_created':
      return since + timing.endpointDeadlineMs;
    case 'endpoint_known':
    case 'bootstrap_running':
      return since + d.connectMs + d.checkMs + d.startMs + d.joinMs;
    case 'destroying':
      return since + timing.destroyConfirmDeadlineMs;
    default:
      return null;
  }
}

export function runView(
  ledger: Ledger,
  run: RunRow,
  linkState: LinkStateOf,
  timing: Timing,
  now: number,
  gpuOf?: GpuOf,
  pullOf?: PullOf,
): RunView {
  const cost = summarize(ledger.leasesOfRun(run.id), now);
  const budgetUsd = run.policy?.budgetUsd ?? null;
  const budgetFraction = budgetUsd === null ? null : cost.accruedUsd / budgetUsd;
  return {
    id: run.id,
    jobName: run.jobName,
    source: run.source,
    origin: run.origin,
    provider: run.provider,
    count: run.count,
    status: run.status,
    detached: run.detached,
    createdAt: run.createdAt,
    endedAt: run.endedAt,
    failedReason: run.failedReason,
    outputsDir: run.outputsDir,
    sweep: ledger.cellSummary(run.id),
    distributed: ledger.jobSpec(run.jobId).distributed === true,
    nodes: ledger.nodesOfRun(run.id).map((n) => {
      const view = nodeView(ledger, n, linkState, timing, run.createdAt, pullOf);
      return gpuOf ? withGpu(view, run.policy, gpuOf) : view;
    }),
    policy: run.policy,
    cost: {
      accruedUsd: cost.accruedUsd,
      burnUsdPerHour: cost.burnUsdPerHour,
      budgetUsd,
      budgetFraction,
      budgetWarning: budgetFraction !== null && budgetFraction >= BUDGET_WARNING,
    },
  };
}

export function leaseView(
  l: LeaseRow,
  now: number,
  extra: { servedRuns?: string[]; warm?: LeaseView['warm'] } = {},
): LeaseView {
  const d = l.deadMan;
  const live = l.state === 'created' || l.state === 'destroying';
  return {
    label: l.label,
    leaseId: l.leaseId,
    provider: l.provider,
    runId: l.runId,
    nodeId: l.nodeId,
    state: l.state,
    pricePerHour: l.pricePerHour,
    ...(l.rates.length > 0 ? { rates: l.rates } : {}),
    createdAt: l.createdAt,
    destroyedAt: l.destroyedAt,
    lastError: l.lastError,
    reason: l.reason,
    accruedUsd: leaseCost(l, now),
    deadMan:
      d && live
        ? {
            renewedAt: d.renewedAt,
            graceMs: d.graceMs,
            firesAt: Math.min(
              d.renewedAt + d.graceMs,
              d.maxDeadlineAt ?? Infinity,
              d.budgetDeadlineAt ?? Infinity,
            ),
          }
        : null,
    interruption: live ? l.interruption : null,
    bid: l.bid,
    minBid: l.minBid,
    ...(extra.servedRuns && extra.servedRuns.length > 0 ? { servedRuns: extra.servedRuns } : {}),
    ...(extra.warm ? { warm: extra.warm } : {}),
  };
}
