import { useQuery } from '@tanstack/react-query';
import type { Offer, OfferFilterInput } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { CHEAPEST } from '../../lib/marketplaces';
import { useDebounced } from './use-debounced';

export type CheapestMatch =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'error'; error: string }
  | {
      state: 'ready';
      price: number | null;
      matches: number;
      /** The marketplace the next node would be rented from (null: none matches). */
      provider: string | null;
    };

/** The offer a node beyond the picked ones is expected to rent, from the offers matching
 *  the pool's shape: one marketplace's cheapest; a chain's first marketplace with a match
 *  (it tries them in order); `cheapest`, the cheapest of all. */
export function expectedOffer(
  poolProvider: string,
  offers: readonly Offer[],
): { offer: Offer | null; matches: number } {
  if (poolProvider === CHEAPEST) return { offer: offers[0] ?? null, matches: offers.length };
  for (const p of poolProvider.split(',')) {
    const own = offers.filter((o) => o.provider === p);
    if (own.length > 0) return { offer: own[0]!, matches: own.length };
  }
  return { offer: null, matches: 0 };
}

/** The price of the offer a node beyond the picked offers is expected to rent now (see
 *  `expectedOffer`). Asked only while such nodes exist. */
export function useCheapestMatch(
  poolProvider: string,
  filter: OfferFilterInput,
  isNeeded: boolean,
): CheapestMatch {
  const key = useDebounced(
    JSON.stringify({
      gpu: filter.gpu,
      gpuCount: filter.gpuCount,
      maxPrice: filter.maxPrice,
      diskGb: filter.diskGb,
      minVramGb: filter.minVramGb,
      minReliability: filter.minReliability,
      verified: filter.verified,
    }),
    500,
  );
  const isSeveral = poolProvider === CHEAPEST || poolProvider.includes(',');
  const q = useQuery({
    queryKey: ['cheapest-offer', poolProvider, key],
    enabled: isNeeded,
    staleTime: 60_000,
    retry: false,
    queryFn: async (): Promise<Offer[]> => {
      const f = { ...(JSON.parse(key) as OfferFilterInput), limit: 64 };
      // Several marketplaces: every configured one (naming one without a key would fail the
      // search), then `expectedOffer` keeps the pool's.
      if (isSeveral) return (await call('offers.searchAll', { filter: f })).offers;
      return call('offers.search', { provider: poolProvider, filter: f });
    },
  });
  if (!isNeeded) return { state: 'idle' };
  if (q.error) return { state: 'error', error: describeError(q.error) };
  if (!q.data) return { state: 'loading' };
  const { offer, matches } = expectedOffer(poolProvider, q.data);
  return {
    state: 'ready',
    price: offer?.pricePerHour ?? null,
    matches,
    provider: offer?.provider ?? null,
  };
}
