import type {
  LeaseView,
  NodeView,
  OrphanView,
  RunView,
  StatusView,
} from '../../../src-main/contract';
import { accrued, burnRate, isLive, needsAttention } from '../../lib/billing';
import { isEndedStage } from './timeline';

export type LedgerFilter = 'live' | 'all';

export interface NodeRow {
  node: NodeView;
  /** The lease the node holds now (its current label), if the ledger has one. */
  lease: LeaseView | null;
  /** Earlier leases of this node: boot failures that were replaced. */
  earlier: LeaseView[];
  isLive: boolean;
}

export interface RunGroup {
  run: RunView;
  rows: NodeRow[];
  /** Leases of the run that no node row claims (kept so nothing billed is hidden). */
  strays: LeaseView[];
  /** Every lease of the run, for per-run totals. */
  leases: LeaseView[];
  isLive: boolean;
  /** Rows left out by the "live only" filter. */
  hiddenRows: number;
}

export interface Attention {
  orphans: OrphanView[];
  /** Leases whose destroy failed, or that were lost track of. */
  leases: LeaseView[];
  unreachable: StatusView['unreachable'];
}

export interface LedgerModel {
  groups: RunGroup[];
  /** Leases without a run in the ledger (orphans Tender adopted to destroy them). */
  loose: LeaseView[];
  attention: Attention;
  /** Groups and loose leases the "live only" filter left out. */
  hiddenRuns: number;
  isEmpty: boolean;
}

const isActiveRun = (r: RunView) => r.status === 'pending' || r.status === 'running';

/** A node may still bill or change: it holds a live lease, or it has not ended (destroyed,
 *  failed, or released: its lease passed to a later run, which lists it from then on). */
export function isNodeLive(node: NodeView, lease: LeaseView | null): boolean {
  if (lease && isLive(lease)) return true;
  return !isEndedStage(node.stage) && node.stage !== 'failed';
}

/** The status as the ledger shows it: runs with their nodes and leases, live runs first,
 *  newest first within each; what needs a person apart. */
export function buildLedger(status: StatusView, filter: LedgerFilter): LedgerModel {
  const runIds = new Set(status.runs.map((r) => r.id));
  const all: RunGroup[] = status.runs.map((run) => groupOf(run, status.leases));
  all.sort((a, b) => Number(b.isLive) - Number(a.isLive) || b.run.createdAt - a.run.createdAt);
  const looseAll = status.leases.filter((l) => l.runId === null || !runIds.has(l.runId));
  const groups =
    filter === 'all'
      ? all
      : all
          .filter((g) => g.isLive)
          .map((g) => {
            const rows = g.rows.filter((r) => r.isLive);
            return { ...g, rows, hiddenRows: g.rows.length - rows.length };
          });
  const loose = filter === 'all' ? looseAll : looseAll.filter(isLive);
  return {
    groups,
    loose,
    attention: {
      orphans: status.orphans,
      leases: status.leases.filter(needsAttention),
      unreachable: status.unreachable,
    },
    hiddenRuns: all.length - groups.length + (looseAll.length - loose.length),
    isEmpty: status.runs.length === 0 && status.leases.length === 0 && status.orphans.length === 0,
  };
}

function groupOf(run: RunView, allLeases: readonly LeaseView[]): RunGroup {
  const leases = allLeases.filter((l) => l.runId === run.id);
  const claimed = new Set<string>();
  const rows = run.nodes.map((node): NodeRow => {
    const mine = leases.filter((l) => l.nodeId === node.id || l.label === node.label);
    const lease = mine.find((l) => l.label === node.label) ?? null;
    const earlier = mine.filter((l) => l !== lease);
    for (const l of mine) claimed.add(l.label);
    return { node, lease, earlier, isLive: isNodeLive(node, lease) || earlier.some(isLive) };
  });
  const strays = leases.filter((l) => !claimed.has(l.label));
  const isLiveGroup = isActiveRun(run) || rows.some((r) => r.isLive) || strays.some(isLive);
  return { run, rows, strays, leases, isLive: isLiveGroup, hiddenRows: 0 };
}

/** $/h now and $ so far of a set of leases. */
export function totals(leases: readonly LeaseView[], now: number) {
  return {
    perHour: burnRate(leases),
    accrued: leases.reduce((sum, l) => sum + accrued(l, now), 0),
    live: leases.filter(isLive).length,
  };
}

/** What a row's leases cost so far (its current lease and the ones it replaced). */
export function rowAccrued(row: NodeRow, now: number): number {
  return [row.lease, ...row.earlier].reduce((s, l) => s + (l ? accrued(l, now) : 0), 0);
}
