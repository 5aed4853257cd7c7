import type { DestroyAllReport, LeaseView, StatusView } from '../../src-main/contract';
import { isLive } from '../lib/billing';

/** One thing Tear down all is about to destroy, as the person confirmed it. */
export interface TeardownTarget {
  kind: 'lease' | 'orphan';
  label: string;
  provider: string;
  leaseId: string | null;
  pricePerHour: number | null;
  runId: string | null;
  nodeId: string | null;
}

export type TargetState = 'destroying' | 'gone' | 'failed';

export interface TargetProgress extends TeardownTarget {
  state: TargetState;
  /** Why it failed (final), or the last failed attempt while Tender still retries. */
  error: string | null;
}

/** Every live lease of the ledger and every orphan: what Tear down all destroys. */
export function teardownTargets(status: StatusView): TeardownTarget[] {
  const leases: TeardownTarget[] = status.leases.filter(isLive).map((l) => ({
    kind: 'lease',
    label: l.label,
    provider: l.provider,
    leaseId: l.leaseId,
    pricePerHour: l.pricePerHour,
    runId: l.runId,
    nodeId: l.nodeId,
  }));
  const orphans = status.orphans.map((o) => unledgered('orphan', o));
  return [...leases, ...orphans];
}

/** A target the ledger knows nothing more about than its label, provider and lease id. */
function unledgered(
  kind: TeardownTarget['kind'],
  t: Pick<TeardownTarget, 'label' | 'provider' | 'leaseId'>,
): TeardownTarget {
  const { label, provider, leaseId } = t;
  return { kind, label, provider, leaseId, pricePerHour: null, runId: null, nodeId: null };
}

/** Where each target stands: gone once the ledger records the provider's confirmation (or
 *  the report says so); failed only by the final report (or when the call itself failed);
 *  destroying until then. Outcomes the report adds (a provider that could not be listed, a
 *  node that had no lease yet) become rows of their own. */
export function teardownProgress(
  targets: readonly TeardownTarget[],
  leases: readonly LeaseView[],
  report: DestroyAllReport | null,
  callError: string | null = null,
): TargetProgress[] {
  const outcomes = report?.outcomes ?? [];
  const used = new Set<number>();
  const rows = targets.map((t): TargetProgress => {
    const i = outcomes.findIndex(
      (o, j) =>
        !used.has(j) && (o.label === t.label || (o.leaseId !== null && o.leaseId === t.leaseId)),
    );
    const outcome = i === -1 ? undefined : outcomes[i];
    if (outcome) {
      used.add(i);
      return outcome.confirmed
        ? { ...t, state: 'gone', error: null }
        : { ...t, state: 'failed', error: outcome.error ?? 'not confirmed gone' };
    }
    const lease = leases.find((l) => l.label === t.label);
    if (lease?.state === 'destroyed' || lease?.state === 'not_created')
      return { ...t, state: 'gone', error: null };
    if (report || callError)
      return { ...t, state: 'failed', error: callError ?? 'the teardown did not report on it' };
    return { ...t, state: 'destroying', error: lease?.lastError ?? null };
  });
  const extra = outcomes
    .filter((_, j) => !used.has(j))
    .map((o): TargetProgress => ({
      ...unledgered('lease', o),
      state: o.confirmed ? 'gone' : 'failed',
      error: o.confirmed ? null : (o.error ?? 'not confirmed gone'),
    }));
  return [...rows, ...extra];
}

export function countStates(rows: readonly TargetProgress[]): Record<TargetState, number> {
  const n: Record<TargetState, number> = { destroying: 0, gone: 0, failed: 0 };
  for (const r of rows) n[r.state]++;
  return n;
}

/** The lease id without the provider's prefix (the provider has its own column). */
export function shortLeaseId(leaseId: string | null, provider: string): string {
  if (!leaseId) return 'not created yet';
  return leaseId.startsWith(`${provider}:`) ? leaseId.slice(provider.length + 1) : leaseId;
}
