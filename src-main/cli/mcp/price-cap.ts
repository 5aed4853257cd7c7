// The most one node of a run may bill per hour, known before anything is rented, and made
// binding: the pool's max_price, which every marketplace's create honours (it rents no
// offer above it). An agent that gives no max_price gets the price of the offers the run
// would take now as its cap.
import { TenderError } from '../../base/tender-error';
import type { Offer, OfferFilter, PoolSpec } from '../../contract';
import { chainOf } from '../../providers/failover/chain';
import { poolSize } from '../../jobs/job-file/job-file-distributed';
import { filterOfPool } from '../../providers/failover/failover-provider';
import { usd } from './commitment';

export interface PriceCapDeps {
  /** Whether leases of this provider kind (one, or a chain) cost money. */
  bills(kind: string): boolean;
  /** Offers of these marketplaces, cheapest all-in first. */
  searchOffers(providers: string[], filter: OfferFilter): Promise<Offer[]>;
  /** Nodes of the session's earlier runs still to rent: as many of the cheapest offers
   *  may go to them first, so the cap is set past them. */
  takenBySession: number;
}

export interface PriceCap {
  capPerHour: number;
  /** The pool to rent with: max_price set to the cap where it bills. */
  pool: PoolSpec;
  /** How the cap was found, for the agent. */
  how: string;
}

const OFFERS_LOOKED_AT = 64;

export async function capPrice(pool: PoolSpec, d: PriceCapDeps): Promise<PriceCap> {
  if (!d.bills(pool.provider))
    return { capPerHour: 0, pool, how: `${pool.provider} bills nothing` };
  if (pool.interruptible === true)
    throw new TenderError(
      'bad_input',
      'an interruptible pool is not rented through tender mcp: a bid can be raised later and storage is not capped by max_price',
      'leave interruptible out (on-demand, bounded by max_price), or have a person run it with `tender run`',
    );
  if (pool.max_price !== undefined)
    return { capPerHour: pool.max_price, pool, how: `max_price ${usd(pool.max_price)}/h` };

  const members = chainOf(pool.provider) ?? [pool.provider];
  const { maxPrice: _none, ...filter } = filterOfPool(pool);
  const offers = await d.searchOffers(members, { ...filter, limit: OFFERS_LOOKED_AT });
  const prices = offers.map((o) => o.pricePerHour).sort((a, b) => a - b);
  const count = poolSize(pool);
  const nth = prices[count + d.takenBySession - 1];
  if (nth === undefined) {
    const others = d.takenBySession > 0 ? ` (and ${d.takenBySession} this session is renting)` : '';
    throw new TenderError(
      'provider',
      `${prices.length === 0 ? 'no' : `only ${prices.length}`} offer${prices.length === 1 ? '' : 's'} of ${members.join(', ')} match${prices.length === 1 ? 'es' : ''} this pool, for ${count} node${count === 1 ? '' : 's'}${others}`,
      'loosen gpu, gpus or the job file’s min_vram_gb/region; tender_offers shows what is there',
    );
  }
  // Rounded up to the hundredth of a cent: the marketplace compares its own float.
  const cap = Math.ceil(nth * 10_000 - 1e-6) / 10_000;
  return {
    capPerHour: cap,
    pool: { ...pool, max_price: cap },
    how: `no max_price given: capped at ${usd(cap)}/h, the price of the ${ordinal(count + d.takenBySession)} cheapest matching offer now`,
  };
}

function ordinal(n: number): string {
  if (n === 1) return '';
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
