// One offers table across every configured marketplace: each searched at once, the rows
// merged cheapest first, and per provider what it answered — one that fails or has no key
// never hides the others' offers.
import type { CommandOutput, OfferFilter } from '../../contract';
import { ProviderError } from '../../base/provider-error';
import { TenderError } from '../../base/tender-error';
import { MARKETPLACES } from '../../providers/failover/chain';
import { isGpuAskedFor } from '../../providers/gpu-names';
import type { Provider } from '../../providers/provider';
import type { ProviderRegistry } from '../../providers/registry';
import { keyVariable } from '../settings/secret-store';

/** A marketplace search can page through thousands of offers; it gets this long. */
export const SEARCH_DEADLINE_MS = 120_000;

/** The names people know the marketplaces by. */
export const MARKET_NAMES: Record<string, string> = {
  vastai: 'Vast.ai',
  runpod: 'RunPod',
  lambda: 'Lambda Cloud',
};

type Across = CommandOutput<'offers.searchAll'>;

const keyHint = (kind: string): string => {
  const variable = keyVariable(kind);
  return variable
    ? `set ${variable} (or add the key in Settings)`
    : `${kind} needs no key; check its configuration`;
};

/** The marketplaces to search: those named (each must exist, sell offers and have a key),
 *  or every one this build has that is configured. */
function marketsOf(registry: Pick<ProviderRegistry, 'get' | 'all'>, named?: string[]): Provider[] {
  const isConfigured = (p: Provider) => !p.isConfigured || p.isConfigured();
  if (named && named.length > 0) {
    return named.map((k) => {
      const p = registry.get(k);
      if (!p.searchOffers)
        throw new TenderError(
          'bad_input',
          `${k} has no offers to search`,
          `offers come from marketplaces: ${MARKETPLACES.join(', ')}`,
        );
      if (!isConfigured(p))
        throw new TenderError('bad_input', `${k} is not configured: it has no API key`, keyHint(k));
      return p;
    });
  }
  const markets = registry.all().filter((p) => p.searchOffers);
  const configured = markets.filter(isConfigured);
  if (configured.length === 0) {
    throw new ProviderError(
      `no marketplace API key is set (${markets.map((p) => `no ${MARKET_NAMES[p.kind] ?? p.kind} API key`).join(', ')})`,
      {
        hint: `set ${markets.map((p) => keyVariable(p.kind) ?? p.kind).join(', ')} — any one will do (or add a key in Settings)`,
      },
    );
  }
  return configured;
}

export async function searchAcross(
  registry: Pick<ProviderRegistry, 'get' | 'all'>,
  named: string[] | undefined,
  filter: OfferFilter,
): Promise<Across> {
  const markets = marketsOf(registry, named);
  const signal = AbortSignal.timeout(SEARCH_DEADLINE_MS);
  const answers = await Promise.all(
    markets.map(async (p) => {
      try {
        return { p, offers: await p.searchOffers!(filter, signal), error: null };
      } catch (err) {
        const hint = err instanceof ProviderError ? (err.opts.hint ?? null) : null;
        return { p, offers: [], error: { message: (err as Error).message, hint } };
      }
    }),
  );
  const offers = answers
    .flatMap((a) => a.offers)
    .sort((a, b) => price(a, filter) - price(b, filter));
  const sources = answers.map((a) => ({
    provider: a.p.kind,
    count: a.offers.length,
    error: a.error,
  }));
  if (offers.length === 0 && filter.gpu && answers.some((a) => !a.error))
    await refuseUnsoldGpu(
      answers.filter((a) => !a.error).map((a) => a.p),
      filter,
      signal,
    );
  return { offers: offers.slice(0, filter.limit), sources };
}

const price = (o: Across['offers'][number], f: OfferFilter) =>
  f.interruptible ? (o.interruptiblePricePerHour ?? o.pricePerHour) : o.pricePerHour;

/** No offer for the GPU asked for: if no marketplace that answered sells it at all (at any
 *  price, in any count), the name is the mistake — say so, with the names that are sold. */
async function refuseUnsoldGpu(
  markets: Provider[],
  filter: OfferFilter,
  signal: AbortSignal,
): Promise<void> {
  const asked = filter.gpu!;
  const loose: OfferFilter = { ...filter, gpuCount: 1, limit: 500, includeFailedHosts: true };
  delete loose.gpu;
  delete loose.maxPrice;
  delete loose.minVramGb;
  delete loose.region;
  delete loose.interruptible;
  const sold = new Set<string>();
  for (const p of markets) {
    const offers = await p.searchOffers!(loose, signal).catch(() => null);
    if (offers === null) return; // cannot tell: the empty table is the answer
    for (const o of offers) sold.add(o.gpuName);
  }
  const names = asked.split(',').map((g) => g.trim());
  if ([...sold].some((s) => names.some((n) => isGpuAskedFor(n, s)))) return;
  throw new TenderError(
    'bad_input',
    `no provider sells a GPU called "${asked}"`,
    sold.size > 0
      ? `GPUs on offer now: ${[...sold].sort().join(', ')}`
      : 'no marketplace lists any GPU right now',
  );
}
