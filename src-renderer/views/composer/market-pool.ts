import type { Offer } from '../../../src-main/contract';
import {
  andList,
  CHEAPEST,
  isMarketplace,
  MARKET,
  MARKETPLACES,
  marketName,
  type Marketplace,
} from '../../lib/marketplaces';
import type { ComposerDraft, DraftProvider } from '../../store/ui';

/** A pool that rents from marketplaces: one, several in order, or the cheapest. */
export type MarketProvider = Marketplace | 'chain' | 'cheapest';

export function isMarketPool(p: DraftProvider): p is MarketProvider {
  return isMarketplace(p) || p === 'chain' || p === CHEAPEST;
}

/** The pool's `provider` as the contract takes it: `vastai`, `runpod,vastai`, `cheapest`. A
 *  chain of one is that marketplace. */
export function poolProviderOf(draft: Pick<ComposerDraft, 'provider' | 'chain'>): string {
  return draft.provider === 'chain' ? draft.chain.join(',') : draft.provider;
}

/** The marketplaces a pool may rent from, in the order it tries them (`cheapest`: all). */
export function marketsOf(draft: Pick<ComposerDraft, 'provider' | 'chain'>): Marketplace[] {
  if (draft.provider === 'chain') return draft.chain;
  if (draft.provider === CHEAPEST) return [...MARKETPLACES];
  return isMarketplace(draft.provider) ? [draft.provider] : [];
}

/** A loaded pool's `provider` (`runpod,vastai`, also from `["runpod", "vastai"]`) as the
 *  draft's; null when the composer offers no such provider. */
export function draftProviderOf(
  kind: string,
  offered: readonly DraftProvider[],
): Pick<ComposerDraft, 'provider' | 'chain'> | null {
  const names = kind.split(',').map((k) => k.trim());
  if (names.length > 1) {
    const isChain = names.every(isMarketplace) && new Set(names).size === names.length;
    return isChain ? { provider: 'chain', chain: names as Marketplace[] } : null;
  }
  const p = offered.find((x) => x === kind);
  return p ? { provider: p, chain: isMarketplace(p) ? [p] : [] } : null;
}

/** Whether the pool may rent interruptible machines: a marketplace in it sells them. */
export function hasInterruptible(draft: Pick<ComposerDraft, 'provider' | 'chain'>): boolean {
  return marketsOf(draft).some((m) => MARKET[m].hasInterruptible);
}

/** What is wrong with the pool's marketplaces, for the person; null when nothing is. */
export function marketProblem(
  draft: Pick<ComposerDraft, 'provider' | 'chain' | 'offers'>,
): string | null {
  if (draft.provider === 'chain' && draft.chain.length === 0)
    return 'Tick at least one marketplace to try';
  const from = [...new Set(draft.offers.map((o: Offer) => o.provider))];
  if (from.length === 0) return null;
  const named = andList(from.map(marketName));
  if (from.length > 1)
    return `The picked offers come from ${named}: a pool rents picked offers from one marketplace; remove the others`;
  if (draft.provider === 'chain' || draft.provider === CHEAPEST)
    return `Offers picked by hand belong to ${named} alone: choose ${named}, or remove the picked offers to let the pool try several marketplaces`;
  if (from[0] !== draft.provider)
    return `The picked offers are ${named}'s: choose ${named}, or remove them and pick ${marketName(draft.provider)} offers`;
  return null;
}
