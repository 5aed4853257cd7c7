import type { Handlers } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { MARKETPLACES } from '../../providers/failover/chain';
import type { ProviderRegistry } from '../../providers/registry';
import { SEARCH_DEADLINE_MS, searchAcross } from './offers-across';

export function offerHandlers(d: {
  providers: Pick<ProviderRegistry, 'get' | 'all'>;
}): Pick<Handlers, 'offers.search' | 'offers.searchAll'> {
  return {
    'offers.search': async ({ provider, filter }) => {
      const p = d.providers.get(provider);
      if (!p.searchOffers)
        throw new TenderError(
          'bad_input',
          `${provider} has no offers to search`,
          `offers come from marketplaces: ${MARKETPLACES.join(', ')}`,
        );
      return p.searchOffers(filter, AbortSignal.timeout(SEARCH_DEADLINE_MS));
    },
    'offers.searchAll': ({ providers, filter }) => searchAcross(d.providers, providers, filter),
  };
}
