import { LIVE_LEASE_STATES, PoolSpec, type Handlers } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import type { ProviderRegistry } from '../../providers/registry';
import { leaseView } from '../views/view-builders';

/** A change of bid is one provider call; its answer is waited for this long. */
const BID_DEADLINE_MS = 60_000;

export interface BidDeps {
  ledger: Pick<Ledger, 'listLeases' | 'getLease' | 'getNode' | 'setInterruption' | 'getRun'>;
  providers: Pick<ProviderRegistry, 'get'>;
  now: () => number;
  requireWriter: () => void;
  /** A reconcile pass that lists anew (a narrower pass in flight is waited out, not
   *  reused): the lease as its provider lists it after the change. */
  reconcile: () => Promise<unknown>;
  /** Starts a run (the run service's `run.start`). */
  start: Handlers['run.start'];
  /** Starts an earlier run's job and pool again (the run service's `run.rerun`). */
  rerun: Handlers['run.rerun'];
}

type BidHandlers = Pick<Handlers, 'lease.bid' | 'run.start' | 'run.rerun'>;

/** Bids: `lease.bid` raises (or lowers) an interruptible lease's bid; `run.start` (and
 *  `run.rerun`, with the earlier run's pool) first asks
 *  the pool's provider to judge a bid against the market (a bid above the on-demand price is
 *  bad input, before anything is written), then starts the run as the run service does. */
export function bidHandlers(d: BidDeps): BidHandlers {
  return {
    'run.start': async (args) => {
      const provider = d.providers.get(args.pool.provider);
      await provider.checkPool?.(args.pool, AbortSignal.timeout(BID_DEADLINE_MS));
      return d.start(args);
    },
    // A rerun's pool is the earlier run's: its bid is judged against the market as it is now.
    'run.rerun': async (args) => {
      const run = d.ledger.getRun(args.runId);
      if (run) {
        const pool = PoolSpec.parse(run.pool);
        const provider = d.providers.get(pool.provider);
        await provider.checkPool?.(pool, AbortSignal.timeout(BID_DEADLINE_MS));
      }
      return d.rerun(args);
    },
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
      d.ledger.setInterruption(
        row.label,
        {
          interruption: row.interruption,
          bid: change.bid,
          minBid: change.minBid ?? row.minBid,
        },
        d.now(),
      );
      // The provider says when it runs again; one look now, the next ones on their interval.
      await d.reconcile();
      return leaseView(d.ledger.getLease(row.label) ?? row, d.now());
    },
  };
}
