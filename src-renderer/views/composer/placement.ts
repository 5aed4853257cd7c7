import type { RunPlan } from '../../../src-main/contract';
import { idleEndsText } from '../../lib/warm';

type PlanNode = RunPlan['nodes'][number];
type WarmNode = NonNullable<PlanNode['warm']>;

/** What `run.plan` says, as the composer words it beside the Run button. */
export interface Placement {
  /** "Reuses warm node vastai:123 (setup cached)", "Rents a new node", "Reuses 2 warm
   *  nodes, rents 1". */
  headline: string;
  /** One line per node, only when there is more than one. */
  nodes: string[];
  /** Why warm nodes were not taken (smaller text). */
  passedOver: string[];
  /** Nodes the plan would claim: the "Use a new node" box is offered while there are any. */
  warmCount: number;
}

export interface PlacementOptions {
  now: number;
  /** "Use a new node" is checked: the run rents even where a warm node would serve. */
  useNew: boolean;
  /** "Rebuild the environment" is checked: a cached setup is not what happens. */
  freshSetup: boolean;
  /** The pool's provider: a Slurm cluster's nodes are allocations it submits, not rents. */
  provider?: string;
}

export function placementSummary(plan: RunPlan, opts: PlacementOptions): Placement {
  const warm = plan.nodes.flatMap((n) => (n.warm ? [n.warm] : []));
  const total = plan.nodes.length;
  const base = { passedOver: plan.passedOver, warmCount: warm.length };
  if (opts.useNew && warm.length > 0) {
    const stays =
      warm.length === 1
        ? `warm node ${warm[0]!.leaseId} stays for another run`
        : `${warm.length} warm nodes stay for another run`;
    return { ...base, headline: `${rents(total, opts.provider)}; ${stays}`, nodes: [] };
  }
  const nodes = total > 1 ? plan.nodes.map((n) => `${n.logicalId}: ${nodeLine(n, opts)}`) : [];
  if (warm.length === 0) return { ...base, headline: rents(total, opts.provider), nodes };
  if (total === 1) return { ...base, headline: `Reuses ${warmName(warm[0]!, opts)}`, nodes };
  const rented = total - warm.length;
  const reuses = `Reuses ${warm.length === 1 ? '1 warm node' : `${warm.length} warm nodes`}`;
  return { ...base, headline: rented > 0 ? `${reuses}, rents ${rented}` : reuses, nodes };
}

function rents(n: number, provider?: string): string {
  if (provider === 'slurm')
    return n === 1 ? 'Submits an allocation (one node)' : `Submits ${n} allocations, one node each`;
  return n === 1 ? 'Rents a new node' : `Rents ${n} new nodes`;
}

function nodeLine(n: PlanNode, opts: PlacementOptions): string {
  return n.warm ? warmName(n.warm, opts) : 'a new node';
}

/** "warm node vastai:123 (setup cached, kept by r-a, idle ends in 12 min)" */
function warmName(w: WarmNode, opts: PlacementOptions): string {
  const facts = [
    w.setupCached && !opts.freshSetup ? 'setup cached' : null,
    `kept by ${w.fromRun}`,
    w.idleEndsAt !== null ? idleEndsText(w.idleEndsAt, opts.now) : null,
  ].filter((x) => x !== null);
  return `warm node ${w.leaseId} (${facts.join(', ')})`;
}
