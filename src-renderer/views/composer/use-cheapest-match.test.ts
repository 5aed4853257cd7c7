import { describe, expect, it } from 'vitest';
import type { Offer } from '../../../src-main/contract';
import { expectedOffer } from './use-cheapest-match';

const offer = (provider: string, pricePerHour: number): Offer =>
  ({ provider, offerId: `${provider}-${pricePerHour}`, pricePerHour }) as Offer;

// searchAll's answer: every configured marketplace's offers, cheapest first.
const merged = [offer('lambda', 0.5), offer('vastai', 0.6), offer('runpod', 0.7)];

describe('the offer a node beyond the picked ones rents', () => {
  it.each<[string, Offer[], string | null, number]>([
    ['cheapest', merged, 'lambda-0.5', 3],
    ['runpod,vastai', merged, 'runpod-0.7', 1],
    ['runpod,vastai', [offer('vastai', 0.6), offer('vastai', 0.9)], 'vastai-0.6', 2],
    ['runpod', [], null, 0],
    ['vastai', [offer('vastai', 0.6)], 'vastai-0.6', 1],
  ])('%s: %j', (provider, offers, id, matches) => {
    const got = expectedOffer(provider, offers);
    expect(got.offer?.offerId ?? null).toBe(id);
    expect(got.matches).toBe(matches);
  });
});
