import type { RunPlan } from '../../../src-main/contract';
import { andList, CHEAPEST, isMarketplace, MARKETPLACES, marketName } from '../../lib/marketplaces';
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
  /** Where new nodes are rented, for a pool of several marketplaces: "Tries RunPod, then
   *  Vast.ai if RunPod has no capacity". Null when nothing is rented or there is one. */
  route: string | null;
}

export interface PlacementOptions {
  now: number;
  /** "Use a new node" is checked: the run rents even where a warm node would serve. */
  useNew: boolean;
  /** "Rebuild the environment" is checked: a cached setup is not what happens. */
  freshSetup: boolean;
  /** The pool's provider as sent (`slurm`, `vastai`, `runpod,vastai`, `cheapest`): a Slurm
   *  cluster's nodes are allocations it submits, not rents. */
  provider?: string;
  /** The marketplaces with a key: the ones `cheapest` compares (unknown: all of them). */
  configured?: readonly string[];
}

export function placementSummary(plan: RunPlan, opts: PlacementOptions): Placement {
  const warm = plan.nodes.flatMap((n) => (n.warm ? [n.warm] : []));
  const total = plan.nodes.length;
  const rentsAny = opts.useNew || warm.length < total;
  const route = rentsAny ? routeOf(opts.provider, opts.configured) : null;
  const base = { passedOver: plan.passedOver, warmCount: warm.length, route };
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

/** What a pool of several marketplaces does for each node it rents. */
export function routeOf(provider?: string, configured?: readonly string[]): string | null {
  if (provider === CHEAPEST) {
    const markets = configured && configured.length > 0 ? configured : MARKETPLACES;
    return `Rents the cheapest matching offer across ${andList(markets.map(marketName))}`;
  }
  const chain = provider?.split(',').map((p) => marketName(p.trim())) ?? [];
  if (chain.length < 2) return null;
  if (chain.length === 2)
    return `Tries ${chain[0]}, then ${chain[1]} if ${chain[0]} has no capacity`;
  return `Tries ${chain[0]}, then ${chain.slice(1).join(', then ')}, each if the one before has no capacity`;
}

function rents(n: number, provider?: string): string {
  if (provider === 'slurm')
    return n === 1 ? 'Submits an allocation (one node)' : `Submits ${n} allocations, one node each`;
  const where = provider && isMarketplace(provider) ? ` on ${marketName(provider)}` : '';
  return n === 1 ? `Rents a new node${where}` : `Rents ${n} new nodes${where}`;
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
