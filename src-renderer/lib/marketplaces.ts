import type { SettingsView } from '../../src-main/contract';

/** The marketplaces Tender rents from, in the order their keys and chips are listed (and
 *  the order `cheapest` breaks ties). */
export const MARKETPLACES = ['vastai', 'runpod', 'lambda'] as const;
export type Marketplace = (typeof MARKETPLACES)[number];

/** What a pool's `provider` is: one marketplace, several in order, or the cheapest. */
export const CHEAPEST = 'cheapest';

interface MarketFacts {
  /** The name people know it by. */
  name: string;
  secret: keyof SettingsView['secrets'];
  env: string;
  /** Where a person creates the key. */
  keyWhere: string;
  /** It sells interruptible (bid) machines. */
  hasInterruptible: boolean;
}

export const MARKET: Record<Marketplace, MarketFacts> = {
  vastai: {
    name: 'Vast.ai',
    secret: 'vastaiApiKey',
    env: 'TENDER_VASTAI_API_KEY',
    keyWhere: 'Vast.ai console → Account → Keys',
    hasInterruptible: true,
  },
  runpod: {
    name: 'RunPod',
    secret: 'runpodApiKey',
    env: 'TENDER_RUNPOD_API_KEY',
    keyWhere: 'RunPod console → Settings → API Keys',
    hasInterruptible: true,
  },
  lambda: {
    name: 'Lambda Cloud',
    secret: 'lambdaApiKey',
    env: 'TENDER_LAMBDA_API_KEY',
    keyWhere: 'Lambda Cloud dashboard → API keys',
    hasInterruptible: false,
  },
};

export function isMarketplace(p: string): p is Marketplace {
  return (MARKETPLACES as readonly string[]).includes(p);
}

/** A provider's display name; an unknown one as it is spelled. */
export function marketName(p: string): string {
  return isMarketplace(p) ? MARKET[p].name : p;
}

/** The marketplaces with a key set (stored or from the environment), in list order. */
export function configuredMarkets(settings: SettingsView | undefined): Marketplace[] {
  if (!settings) return [];
  return MARKETPLACES.filter((m) => settings.secrets[MARKET[m].secret]?.isSet === true);
}

/** "Vast.ai", "Vast.ai and RunPod", "Vast.ai, RunPod and Lambda Cloud". */
export function andList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
