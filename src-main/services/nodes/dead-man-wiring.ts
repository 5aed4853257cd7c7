import type { Ledger } from '../../ledger/ledger';
import type { DeadManWiring } from '../../jobs/node-job/node-job';
import type { NodeManager } from '../../nodes/node-manager';
import type { SelfTeardown } from '../../../src-agent/wire/protocol';
import type { LeaseFacts, Provider } from '../../providers/provider';
import { budgetDeadline, summarize } from '../../money/cost';
import {
  fromAgentRecord,
  inferSelfTeardown,
  renewalFacts,
  renewalParams,
  renewEveryMs,
  selfTeardownWords,
  type RenewalInput,
} from '../../money/dead-man';

export interface DeadManContext {
  ledger: Ledger;
  now: () => number;
  /** An interactive terminal is open on the node (it is in use: not idle). */
  isNodeInUse: (nodeId: string) => boolean;
}

/** A node's dead-man switch, wired to the ledger: the run's policy and cost decide what each
 *  renewal says; every acknowledged renewal is remembered so that a later process can tell
 *  why a vanished node destroyed itself. */
export function deadManWiring(
  ctx: DeadManContext,
  manager: NodeManager,
  provider: Provider,
): DeadManWiring | null {
  const rec = manager.record;
  const policy = ctx.ledger.getRun(rec.runId)?.policy;
  if (!policy) return null;
  const teardownOf = (lease: LeaseFacts): SelfTeardown =>
    provider.selfTeardown?.(lease) ?? { kind: 'remove-files' };
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
      teardown: teardownOf(r.lease),
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
      const lease = manager.record.lease;
      return selfTeardownWords(record, {
        bills: provider.bills === true,
        destroysItself: lease !== null && teardownOf(lease).kind !== 'remove-files',
      });
    },
    explainLoss: () => {
      const facts = ctx.ledger.getLease(manager.record.label)?.deadMan;
      return facts ? (inferSelfTeardown(facts, ctx.now())?.reason ?? null) : null;
    },
    isNodeInUse: () => ctx.isNodeInUse(rec.id),
  };
}
