import type { DestroyAllReport, DestroyOutcome } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import type { NodeManager } from '../../nodes/node-manager';
import type { NodeRecord } from '../../ledger/node-record';
import type { Provider } from '../../providers/provider';
import type { ProviderRegistry } from '../../providers/registry';
import type { NodeFactory } from '../nodes/node-factory';
import type { ReconcileReport } from '../reconcile/reconciler';
import type { RunService } from '../runs/run-service';
import type { DestroyRetries } from './destroy-retries';

export interface TeardownDeps {
  ledger: Ledger;
  providers: Pick<ProviderRegistry, 'get'>;
  now: () => number;
  factory: Pick<NodeFactory, 'manager'>;
  runs: Pick<RunService, 'managerOf' | 'abandonAll' | 'isDriven' | 'jobOf'>;
  /** Every provider's labelled leases (orphans among them), listed now. */
  survey: () => Promise<Pick<ReconcileReport, 'orphans' | 'unreachable'>>;
  requireWriter: () => void;
  /** Destroy attempts a teardown waits for before it reports a lease not confirmed
   *  (the timing's teardownMaxAttempts; 4 when not given). */
  maxAttempts?: () => number;
  /** The destroys the reconciler is retrying (a down waits on those managers). */
  retries?: Pick<DestroyRetries, 'adopt'>;
}

const NODE_DEADLINE_MS = 10 * 60_000;

/** Tear down all: every lease the ledger holds as live, and (optionally) every orphan, in
 *  parallel. Each is reported confirmed only once its provider no longer lists it. */
export async function destroyAll(
  core: TeardownDeps,
  opts: { leases: boolean; orphans: boolean },
): Promise<DestroyAllReport> {
  core.requireWriter();
  if (opts.leases) core.runs.abandonAll('torn down by the user');
  const nodeOutcomes = opts.leases
    ? destroyNodes(core, core.ledger.unfinishedNodes(), 'tear down all')
    : Promise.resolve([]);
  const orphanOutcomes = opts.orphans ? await destroyOrphans(core) : [];
  const outcomes = [...(await nodeOutcomes), ...orphanOutcomes];
  closeUndrivenRuns(core, 'torn down by `tender down --all`');
  return { outcomes, allConfirmed: outcomes.every((o) => o.confirmed) };
}

/** One run's live leases (a run id) or one lease's (its id or label): each is reported
 *  confirmed only once its provider no longer lists it. */
export async function destroyTarget(core: TeardownDeps, target: string): Promise<DestroyAllReport> {
  core.requireWriter();
  const reason = `torn down by the user (${target})`;
  // A released node's lease is a later run's: that run's node tears it down.
  const nodes = nodesOfTarget(core.ledger, target).filter(
    (n) => n.stage !== 'destroyed' && n.stage !== 'released',
  );
  for (const n of nodes) core.runs.jobOf(n.id)?.abandon(reason);
  const outcomes = await destroyNodes(core, nodes, reason);
  closeUndrivenRuns(core, `torn down by \`tender down ${target}\``);
  return { outcomes, allConfirmed: outcomes.every((o) => o.confirmed) };
}

/** The nodes a `tender down` target names: every node of a run, or the node of a lease. */
export function nodesOfTarget(ledger: TeardownDeps['ledger'], target: string): NodeRecord[] {
  if (ledger.getRun(target)) return ledger.nodesOfRun(target);
  const lease = ledger.listLeases().find((l) => l.leaseId === target || l.label === target);
  if (!lease)
    throw new TenderError(
      'not_found',
      `no run or lease ${target}`,
      '`tender status` lists runs (r-…) and leases (e.g. vastai:123456)',
    );
  const node = lease.nodeId ? ledger.getNode(lease.nodeId) : undefined;
  if (!node)
    throw new TenderError(
      'conflict',
      `lease ${target} belongs to no run: it is an orphan`,
      '`tender down --orphans` destroys orphans',
    );
  return [node];
}

/** Destroys the leases of these nodes through their NodeManagers (the one a driver in this
 *  process owns, or a fresh one) and waits for each to be confirmed or given up on. A
 *  lease left `destroying` (an earlier teardown gave up on it) is tried again: its wait
 *  counts only the attempts made now, so what it reports is this teardown's own error. */
export function destroyNodes(
  core: TeardownDeps,
  records: NodeRecord[],
  reason: string,
): Promise<DestroyOutcome[]> {
  const maxAttempts = core.maxAttempts?.() ?? 4;
  const owned = new Map<string, NodeManager>();
  for (const rec of records) {
    const m = core.runs.managerOf(rec.id);
    if (m) owned.set(rec.id, m);
  }

  return Promise.all(
    records.map(async (rec): Promise<DestroyOutcome> => {
      const provider = core.providers.get(rec.desired.provider);
      // A destroy the reconciler is retrying is taken over (one manager per node).
      const manager =
        owned.get(rec.id) ?? core.retries?.adopt(rec.id) ?? core.factory.manager(rec, provider);
      const before = manager.record.destroyAttempts;
      // A destroy a dead process began (or an earlier teardown gave up on) is tried again
      // now; Destroy itself would be ignored in that stage.
      if (!owned.has(rec.id) && manager.record.stage === 'destroying') manager.resume();
      else manager.send({ type: 'Destroy', reason });
      const settled = await Promise.race([
        manager.waitFor(
          (r) =>
            r.stage === 'destroyed' ||
            (r.stage === 'destroying' && r.destroyAttempts >= before + maxAttempts),
        ),
        new Promise<null>((r) => setTimeout(() => r(null), NODE_DEADLINE_MS).unref()),
      ]);
      if (!owned.has(rec.id)) manager.stop();
      return outcomeOf(rec, settled ?? manager.record, provider);
    }),
  );
}

function outcomeOf(initial: NodeRecord, rec: NodeRecord, provider: Provider): DestroyOutcome {
  const confirmed = rec.stage === 'destroyed';
  return {
    label: initial.label,
    leaseId: rec.lease?.leaseId ?? null,
    provider: provider.kind,
    confirmed,
    error: confirmed ? null : (rec.lastError ?? `still ${rec.stage}`),
  };
}

async function destroyOrphans(core: TeardownDeps): Promise<DestroyOutcome[]> {
  const { orphans, unreachable } = await core.survey();
  const results = orphans.map(async (o): Promise<DestroyOutcome> => {
    const provider = core.providers.get(o.provider);
    core.ledger.recordOrphan(
      { label: o.label, leaseId: o.leaseId, provider: o.provider, handle: o.facts.destroyHandle },
      core.now(),
    );
    let error: string | null = null;
    try {
      const signal = AbortSignal.timeout(NODE_DEADLINE_MS);
      const answer = await provider.destroyLease(o.facts.destroyHandle, signal);
      while (answer !== 'gone' && !(await provider.isGone(o.facts.destroyHandle, signal)))
        await new Promise((r) => setTimeout(r, 500));
    } catch (err) {
      error = (err as Error).message;
    }
    core.ledger.settleOrphan(o.label, { confirmed: error === null, error }, core.now());
    return {
      label: o.label,
      leaseId: o.leaseId,
      provider: o.provider,
      confirmed: error === null,
      error,
    };
  });
  const unreached: DestroyOutcome[] = unreachable.map((u) => ({
    label: `(every orphan of ${u.provider})`,
    leaseId: null,
    provider: u.provider,
    confirmed: false,
    error: `could not list leases: ${u.error}`,
  }));
  return [...(await Promise.all(results)), ...unreached];
}

/** Runs that no process drives (detached, or left by a crash) and whose nodes are all gone
 *  have ended: record them as failed, so nothing shows as running that cannot be. */
function closeUndrivenRuns(core: TeardownDeps, reason: string): void {
  const now = core.now();
  for (const run of core.ledger.listRuns()) {
    if (core.runs.isDriven(run.id) || (run.status !== 'pending' && run.status !== 'running'))
      continue;
    const nodes = core.ledger.nodesOfRun(run.id);
    if (!nodes.every((n) => n.stage === 'destroyed' || n.stage === 'released')) continue;
    for (const n of nodes) {
      const a = core.ledger.getAttempt(n.id);
      if (!a || a.phase === 'done') continue;
      const status = a.status === 'completed' ? 'completed' : 'failed';
      core.ledger.updateAttempt(
        n.id,
        { status, phase: 'done', reason: a.reason ?? (status === 'failed' ? reason : null) },
        { kind: 'job.closed', data: { reason } },
        now,
      );
    }
    core.ledger.updateRun(
      run.id,
      { status: 'failed', failedReason: reason, endedAt: now, detached: false },
      now,
    );
  }
}
