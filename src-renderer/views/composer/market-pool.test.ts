import { describe, expect, it } from 'vitest';
import type { Offer } from '../../../src-main/contract';
import type { ComposerDraft } from '../../store/ui';
import { hasInterruptible, marketProblem, marketsOf, poolProviderOf } from './market-pool';

const offer = (provider: string, offerId = '1'): Offer =>
  ({ provider, offerId, gpuName: 'A100', pricePerHour: 1 }) as Offer;

type Pool = Pick<ComposerDraft, 'provider' | 'chain' | 'offers'>;
const pool = (provider: ComposerDraft['provider'], over: Partial<Pool> = {}): Pool => ({
  provider,
  chain: ['runpod', 'vastai'],
  offers: [],
  ...over,
});

describe('a marketplace pool', () => {
  it.each<[string, Pool, string, string[], boolean]>([
    ['one marketplace', pool('runpod'), 'runpod', ['runpod'], true],
    ['Lambda Cloud', pool('lambda'), 'lambda', ['lambda'], false],
    ['a chain', pool('chain'), 'runpod,vastai', ['runpod', 'vastai'], true],
    ['a chain of Lambda alone', pool('chain', { chain: ['lambda'] }), 'lambda', ['lambda'], false],
    ['the cheapest', pool('cheapest'), 'cheapest', ['vastai', 'runpod', 'lambda'], true],
    ['local', pool('local'), 'local', [], false],
  ])('%s: sent as %s, rents from %j, interruptible %s', (_, p, sent, markets, bids) => {
    expect(poolProviderOf(p)).toBe(sent);
    expect(marketsOf(p)).toEqual(markets);
    expect(hasInterruptible(p)).toBe(bids);
  });

  it.each<[string, Pool, RegExp | null]>([
    ['Vast.ai offers on Vast.ai', pool('vastai', { offers: [offer('vastai')] }), null],
    ['no offers in a chain', pool('chain'), null],
    ['an empty chain', pool('chain', { chain: [] }), /Tick at least one marketplace/],
    [
      'Vast.ai offers on RunPod',
      pool('runpod', { offers: [offer('vastai')] }),
      /are Vast\.ai's: choose Vast\.ai, or remove them and pick RunPod offers/,
    ],
    [
      'offers in a chain',
      pool('chain', { offers: [offer('runpod')] }),
      /belong to RunPod alone: choose RunPod, or remove/,
    ],
    [
      'offers of the cheapest',
      pool('cheapest', { offers: [offer('vastai')] }),
      /belong to Vast\.ai alone/,
    ],
    [
      'offers of two marketplaces',
      pool('vastai', { offers: [offer('vastai'), offer('lambda', '2')] }),
      /come from Vast\.ai and Lambda Cloud/,
    ],
  ])('%s', (_, p, problem) => {
    const found = marketProblem(p);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });
});
