import type { HostView, LeaseView, NodeView, RunView } from '../contract';
import { LIVE_LEASE_STATES } from '../contract';
import { readHosts } from '../providers/ssh/hosts-file';
import type { Ledger } from '../ledger/ledger';
import type { LeaseRow, RunRow } from '../ledger/rows';
import type { NodeRecord } from '../nodes/node-record';

export type LinkStateOf = (nodeId: string) => 'none' | 'connected' | 'lost';

export function nodeView(ledger: Ledger, rec: NodeRecord, linkState: LinkStateOf): NodeView {
  const attempt = ledger.getAttempt(rec.id);
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
    jobStatus: attempt?.status ?? null,
    jobPhase: attempt?.phase ?? null,
    exitCode: attempt?.exitCode ?? null,
    linkState: linkState(rec.id),
    updatedAt: rec.stageSince,
    stageSince: rec.stageSince,
  };
}

export function runView(ledger: Ledger, run: RunRow, linkState: LinkStateOf): RunView {
  return {
    id: run.id,
    jobName: run.jobName,
    provider: run.provider,
    count: run.count,
    status: run.status,
    detached: run.detached,
    createdAt: run.createdAt,
    endedAt: run.endedAt,
    failedReason: run.failedReason,
    outputsDir: run.outputsDir,
    nodes: ledger.nodesOfRun(run.id).map((n) => nodeView(ledger, n, linkState)),
  };
}

/** hosts.toml, with the run holding each host now (a live ssh lease on it). */
export function hostViews(core: { home: string; ledger: Ledger }): HostView[] {
  const live = core.ledger.listLeases(LIVE_LEASE_STATES).filter((l) => l.provider === 'ssh');
  return readHosts(core.home).map((h) => ({
    name: h.name,
    host: h.host,
    port: h.port,
    user: h.user,
    identityFile: h.identityFile,
    claimedBy:
      live.find((l) => l.leaseId?.startsWith(`ssh:${h.name}/`) || l.destroyHandle?.host === h.name)
        ?.runId ?? null,
  }));
}

export function leaseView(l: LeaseRow): LeaseView {
  return {
    label: l.label,
    leaseId: l.leaseId,
    provider: l.provider,
    runId: l.runId,
    nodeId: l.nodeId,
    state: l.state,
    pricePerHour: l.pricePerHour,
    createdAt: l.createdAt,
    destroyedAt: l.destroyedAt,
    lastError: l.lastError,
    reason: l.reason,
  };
}
