import { LIVE_LEASE_STATES, type Handlers } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import type { ProviderRegistry } from '../../providers/registry';
import { leaseView } from '../views/view-builders';

/** A change of bid is one provider call; its answer is waited for this long. */
const BID_DEADLINE_MS = 60_000;

export interface BidDeps {
  ledger: Pick<Ledger, 'listLeases' | 'getLease' | 'getNode' | 'setInterruption'>;
  providers: Pick<ProviderRegistry, 'get'>;
  now: () => number;
  requireWriter: () => void;
  /** A reconcile pass that lists anew (a narrower pass in flight is waited out, not
   *  reused): the lease as its provider lists it after the change. */
  reconcile: () => Promise<unknown>;
}

type BidHandlers = Pick<Handlers, 'lease.bid'>;

/** `lease.bid` raises (or lowers) an interruptible lease's bid. (A run's bid is judged
 *  before the run starts: services/runs/run-preflight.ts.) */
export function bidHandlers(d: BidDeps): BidHandlers {
  return {
    'lease.bid': async ({ leaseId, bid }) => {
      d.requireWriter();
      const row = d.ledger
        .listLeases(LIVE_LEASE_STATES)
        .find((l) => l.leaseId === leaseId || l.label === leaseId);
      if (!row)
        throw new TenderError(
          'not_found',
          `no live lease ${leaseId}`,
          '`tender status` lists the live leases and their ids',
        );
      const facts = row.nodeId ? d.ledger.getNode(row.nodeId)?.lease : undefined;
      if (row.state !== 'created' || !facts)
        throw new TenderError(
          'bad_input',
          `lease ${leaseId} is ${row.state}: it has no bid to change`,
        );
      const provider = d.providers.get(row.provider);
      if (!provider.changeBid)
        throw new TenderError('bad_input', `${row.provider} leases are not rented by bidding`);
      const change = await provider.changeBid(facts, bid, AbortSignal.timeout(BID_DEADLINE_MS));
      // Read again: while the change was on its way a pass may have seen the lease run again,
      // and writing back the interruption read before it would mark it outbid once more.
      const current = d.ledger.getLease(row.label) ?? row;
      d.ledger.setInterruption(
        row.label,
        {
          interruption: current.interruption,
          bid: change.bid,
          minBid: change.minBid ?? current.minBid,
        },
        d.now(),
      );
      // The provider says when it runs again; one look now, the next ones on their interval.
      await d.reconcile();
      return leaseView(d.ledger.getLease(row.label) ?? row, d.now());
    },
  };
}
