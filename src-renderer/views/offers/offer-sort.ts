import type { Offer } from '../../../src-main/contract';
import { andList, marketName } from '../../lib/marketplaces';

export type SortKey =
  | 'provider'
  | 'price'
  | 'bid'
  | 'gpu'
  | 'vram'
  | 'reliability'
  | 'down'
  | 'up'
  | 'region'
  | 'cuda'
  | 'dlperf'
  | 'value';
export type SortDir = 'asc' | 'desc';
export interface Sort {
  key: SortKey;
  dir: SortDir;
}

/** The first click on a column sorts the way people want it: cheapest, biggest, fastest. */
export const FIRST_DIR: Record<SortKey, SortDir> = {
  provider: 'asc',
  price: 'asc',
  bid: 'asc',
  gpu: 'asc',
  vram: 'desc',
  reliability: 'desc',
  down: 'desc',
  up: 'desc',
  region: 'asc',
  cuda: 'desc',
  dlperf: 'desc',
  value: 'desc',
};

/** DLPerf per dollar-hour: how much work a dollar buys, when the provider scores it. */
export function valueOf(o: Offer): number | null {
  return o.dlperf !== null && o.pricePerHour > 0 ? o.dlperf / o.pricePerHour : null;
}

const VALUE: Record<SortKey, (o: Offer) => number | string | null> = {
  provider: (o) => marketName(o.provider),
  price: (o) => o.pricePerHour,
  // The interruptible price (lowest bid plus storage); offers that take no bid sort last.
  bid: (o) => o.interruptiblePricePerHour ?? null,
  gpu: (o) => `${o.gpuName} ${String(o.gpuCount).padStart(2, '0')}`,
  vram: (o) => o.vramGb * o.gpuCount,
  reliability: (o) => o.reliability,
  down: (o) => o.downMbps,
  up: (o) => o.upMbps,
  region: (o) => o.location,
  cuda: (o) => o.cudaMaxGood,
  dlperf: (o) => o.dlperf,
  value: valueOf,
};

/** Sorted copy; missing values last either way; ties go to the cheaper offer. */
export function sortOffers(offers: readonly Offer[], sort: Sort): Offer[] {
  const get = VALUE[sort.key];
  const sign = sort.dir === 'asc' ? 1 : -1;
  return offers.slice().sort((a, b) => {
    const x = get(a);
    const y = get(b);
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1;
    } else if (x !== y) {
      const c = typeof x === 'string' ? x.localeCompare(String(y)) : x - (y as number);
      if (c !== 0) return sign * c;
    }
    return a.pricePerHour - b.pricePerHour;
  });
}

/** A click on a header: the same column flips, another starts in its natural direction. */
export function nextSort(current: Sort, key: SortKey): Sort {
  return current.key === key
    ? { key, dir: current.dir === 'asc' ? 'desc' : 'asc' }
    : { key, dir: FIRST_DIR[key] };
}

/** An offer's key among every marketplace's (offer ids are each provider's own). */
export function offerKey(o: Pick<Offer, 'provider' | 'offerId'>): string {
  return `${o.provider}:${o.offerId}`;
}

/** The pool: the offers picked by hand (in table order), then the cheapest unpicked offers
 *  until there are `count` — whatever the table is sorted by, so "let the cheapest fill the
 *  pool" holds with the table sorted by price high to low. A pool rents from one marketplace:
 *  the offers that fill it are those of the picked offers' provider (none picked: the
 *  cheapest offer's). */
export function poolOf(
  sorted: readonly Offer[],
  picked: ReadonlySet<string>,
  count: number,
): { pool: Offer[]; auto: Set<string> } {
  const pool = sorted.filter((o) => picked.has(offerKey(o)));
  const auto = new Set<string>();
  // Stable: equal prices keep the table's order.
  const byPrice = sorted.slice().sort((a, b) => a.pricePerHour - b.pricePerHour);
  const provider = (pool[0] ?? byPrice[0])?.provider;
  for (const o of byPrice) {
    if (pool.length >= count) break;
    if (picked.has(offerKey(o)) || o.provider !== provider) continue;
    pool.push(o);
    auto.add(offerKey(o));
  }
  return { pool, auto };
}

/** Why the pool cannot be used as it is: offers picked from two marketplaces (a pool with
 *  picked offers names that offer's provider alone). Null when it can. */
export function poolProblem(pool: readonly Offer[]): string | null {
  const providers = [...new Set(pool.map((o) => o.provider))];
  if (providers.length <= 1) return null;
  return `The picked offers come from ${andList(providers.map(marketName))}: a pool rents from one marketplace, so unpick the others (or let New run try marketplaces in order)`;
}
