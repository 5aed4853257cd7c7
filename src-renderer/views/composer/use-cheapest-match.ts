import { useQuery } from '@tanstack/react-query';
import type { OfferFilterInput } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { useDebounced } from './use-debounced';

export type CheapestMatch =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'error'; error: string }
  | { state: 'ready'; price: number | null; matches: number };

/** The cheapest Vast.ai offer matching the pool's shape now: what a node beyond the picked
 *  offers is expected to cost. Asked only while such nodes exist. */
export function useCheapestMatch(filter: OfferFilterInput, isNeeded: boolean): CheapestMatch {
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
  const q = useQuery({
    queryKey: ['cheapest-offer', key],
    enabled: isNeeded,
    staleTime: 60_000,
    retry: false,
    queryFn: () =>
      call('offers.search', {
        provider: 'vastai',
        filter: { ...(JSON.parse(key) as OfferFilterInput), limit: 64 },
      }),
  });
  if (!isNeeded) return { state: 'idle' };
  if (q.error) return { state: 'error', error: describeError(q.error) };
  if (!q.data) return { state: 'loading' };
  return { state: 'ready', price: q.data[0]?.pricePerHour ?? null, matches: q.data.length };
}
