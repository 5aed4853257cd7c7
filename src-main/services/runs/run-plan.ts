import { parseConstraint } from '../../contract/constraint';
import {
  cellCount,
  estimateSweep,
  type CommandArgs,
  type JobSpec,
  type RunPlan,
} from '../../contract';
import { hostDeclaration, hostKey } from '../../jobs/host/host-declaration';
import type { Ledger } from '../../ledger/ledger';
import type { Provider } from '../../providers/provider';
import { throwOnConflict, idleEndsAt, planWarmClaims } from './warm-match';

export interface RunPlanDeps {
  ledger: Pick<Ledger, 'dormantNodes' | 'jobSpec' | 'lastCellDurations'>;
  now: () => number;
}

/** `run.plan`: what `run.start` would do with these nodes, and nothing else: no write. */
export function planRun(
  d: RunPlanDeps,
  provider: Provider,
  args: CommandArgs<'run.plan'>,
): RunPlan {
  const cells = args.job.sweep ? cellCount(args.job.sweep) : null;
  // A sweep's nodes serve its cells: no more nodes than cells.
  const shapes = provider.shapeNodes(args.pool).slice(0, cells ?? Infinity);
  const host = hostDeclaration(args.job, args.pool, provider.kind);
  const key = hostKey(host);
  const now = d.now();
  const candidates = args.reuseWarm ? d.ledger.dormantNodes(provider.kind) : [];
  const plan = planWarmClaims(
    candidates,
    {
      provider: provider.kind,
      hostKey: key,
      host,
      shapes,
      maxPrice: args.pool.max_price,
      constraints: (args.job.constraints ?? []).map(parseConstraint),
    },
    now,
  );
  throwOnConflict(plan);
  return {
    hostKey: key,
    nodes: shapes.map((_, i) => {
      const node = plan.claims.get(i);
      const c = node && candidates.find((x) => x.node.id === node.id);
      if (!node || !c) return { logicalId: `node-${i}`, warm: null };
      return {
        logicalId: `node-${i}`,
        warm: {
          leaseId: node.lease?.leaseId ?? node.label,
          fromRun: node.runId,
          pricePerHour: c.lease?.pricePerHour ?? null,
          idleEndsAt: idleEndsAt(c),
          setupCached: isSetupCached(d.ledger.jobSpec(c.run.jobId), args.job, c.run.status),
        },
      };
    }),
    passedOver: plan.passedOver,
    sweep:
      cells === null
        ? null
        : estimateSweep(cells, shapes.length, d.ledger.lastCellDurations(args.job.name)),
  };
}

/** The run before ran the same cached setup keyed the same way, and got past it (the
 *  files' contents are the node's to compare: this is the plan's best guess). */
function isSetupCached(before: JobSpec, next: JobSpec, status: string): boolean {
  if (!next.setup || next.setup_cache === false || before.setup_cache === false) return false;
  return (
    before.setup === next.setup &&
    JSON.stringify(before.setup_fingerprint) === JSON.stringify(next.setup_fingerprint) &&
    status === 'completed'
  );
}
