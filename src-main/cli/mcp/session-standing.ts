// What one run of an MCP session commits and how many nodes it holds, from the views the
// contract gives (run.get, lease.list). Pure; commitment.ts judges the sum.
import { currentRate } from '../../contract/billing';
import { LIVE_LEASE_STATES } from '../../contract/stages';
import type { LeaseView, RunView } from '../../contract';
import type { RunCommitment } from './commitment';

/** What the session remembers of a run it started: the price bound it was judged at. */
export interface StartedRun {
  runId: string;
  priceCapPerHour: number;
  maxDurationMs: number;
}

export interface RunStanding {
  commitment: RunCommitment;
  /** Nodes holding a live lease, or still able to rent one. */
  liveNodes: number;
}

/** A run's commitment and live nodes: created leases that bill at their rate for what is
 *  left of their max duration; a node of a run still going without one at the cap. */
export function runStanding(
  started: StartedRun,
  view: RunView,
  leases: readonly LeaseView[],
): RunStanding {
  const live = leases.filter((l) => l.runId === view.id && LIVE_LEASE_STATES.includes(l.state));
  const created = live.filter((l) => l.state !== 'requested' && l.createdAt !== null);
  const isGoing = view.status === 'pending' || view.status === 'running';
  let holding = 0;
  let awaiting = 0;
  for (const node of view.nodes) {
    const mine = live.filter((l) => l.nodeId === node.id);
    const hasCreated = mine.some((l) => created.includes(l));
    if (mine.length > 0) holding++;
    const hasEnded =
      node.jobStatus === 'completed' ||
      node.jobStatus === 'failed' ||
      node.jobStatus === 'cancelled';
    if (!hasCreated && isGoing && !hasEnded) {
      awaiting++;
      if (mine.length === 0) holding++;
    }
  }
  return {
    commitment: {
      accruedUsd: view.cost.accruedUsd,
      maxDurationMs: view.policy?.maxDurationMs ?? started.maxDurationMs,
      priceCapPerHour: started.priceCapPerHour,
      liveLeases: created.map((l) => ({
        ratePerHour: currentRate(l) ?? started.priceCapPerHour,
        createdAt: l.createdAt!,
      })),
      nodesAwaitingLease: awaiting,
    },
    liveNodes: holding,
  };
}
