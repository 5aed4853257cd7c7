import { desiredOnLease } from '../../nodes/desired-on-lease';
import { chainOf } from '../../providers/failover/chain';
import type { Constraint } from '../../contract/constraint';
import type { HostKeyInput } from '../../../src-agent/wire/host-key';
import type { Datastream } from '../../datastream/datastream';
import type { Ledger } from '../../ledger/ledger';
import type { NodeDesired, NodeRecord } from '../../ledger/node-record';
import type { NodeShape } from '../../providers/pool-shapes';
import { throwOnConflict, planWarmClaims } from './warm-match';

export interface WarmClaimDeps {
  ledger: Pick<Ledger, 'dormantNodes'>;
  datastream: Pick<Datastream, 'lastSeq'>;
  now: () => number;
}

export interface WarmPlacement {
  /** Shape slot → the new run's node record, holding the warm node's lease. */
  claimed: Map<number, NodeRecord>;
  /** What the run says about warm nodes it did not take. */
  notes: string[];
}

/** Which warm nodes a new run takes, as node records of that run ready to be written with
 *  it (ledger createRun hands the leases over in its transaction). On machines you own a
 *  warm node with another key is an error: they cannot be rented again, so only
 *  an exact host-key match may serve. */
export function placeOnWarmNodes(
  d: WarmClaimDeps,
  want: {
    runId: string;
    provider: string;
    hostKey: string;
    host: HostKeyInput;
    shapes: NodeShape[];
    maxPrice: number | undefined;
    constraints?: Constraint[];
    desired: (slot: number) => NodeDesired;
    logicalId: (slot: number) => string;
  },
): WarmPlacement {
  const now = d.now();
  // A pool naming several providers may take a warm node of any of them.
  const plan = planWarmClaims(
    d.ledger.dormantNodes(chainOf(want.provider) ? undefined : want.provider),
    want,
    now,
  );
  throwOnConflict(plan);
  const claimed = new Map<number, NodeRecord>();
  for (const [slot, from] of plan.claims) {
    const logicalId = want.logicalId(slot);
    claimed.set(slot, {
      ...from,
      id: `${want.runId}/${logicalId}`,
      runId: want.runId,
      logicalId,
      desired: from.lease ? desiredOnLease(want.desired(slot), from.lease) : want.desired(slot),
      stageSince: now,
      claimedFrom: {
        nodeId: from.id,
        runId: from.runId,
        at: now,
        agentSeq: d.datastream.lastSeq(from.id, 'agent'),
      },
      releasedTo: undefined,
    });
  }
  return { claimed, notes: plan.passedOver };
}
