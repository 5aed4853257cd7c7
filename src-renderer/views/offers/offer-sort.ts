import type { Offer } from '../../../src-main/contract';

export type SortKey =
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

/** The pool: the offers picked by hand (in table order), then the first unpicked rows of the
 *  table until there are `count`. */
export function poolOf(
  sorted: readonly Offer[],
  picked: ReadonlySet<string>,
  count: number,
): { pool: Offer[]; auto: Set<string> } {
  const pool = sorted.filter((o) => picked.has(o.offerId));
  const auto = new Set<string>();
  for (const o of sorted) {
    if (pool.length >= count) break;
    if (picked.has(o.offerId)) continue;
    pool.push(o);
    auto.add(o.offerId);
  }
  return { pool, auto };
}
