import type { Handlers } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { ProviderRegistry } from '../../providers/registry';

/** A marketplace search can page through thousands of offers; it gets this long. */
const SEARCH_DEADLINE_MS = 120_000;

export function offerHandlers(d: {
  providers: Pick<ProviderRegistry, 'get'>;
}): Pick<Handlers, 'offers.search'> {
  return {
    'offers.search': async ({ provider, filter }) => {
      const p = d.providers.get(provider);
      if (!p.searchOffers)
        throw new TenderError(
          'bad_input',
          `${provider} has no offers to search`,
          'offers come from marketplaces such as vastai',
        );
      return p.searchOffers(filter, AbortSignal.timeout(SEARCH_DEADLINE_MS));
    },
  };
}
