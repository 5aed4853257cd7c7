import { describe, expect, it } from 'vitest';
import { parseConstraint } from '../../contract/constraint';
import type { Offer } from '../../contract/offer';
import { filterOffers, offerCapabilities } from './offer-constraints';

const offer = (
  id: string,
  gpuName: string,
  gpuCount: number,
  vramGb: number,
  cuda: number | null,
): Offer => ({
  provider: 'vastai',
  offerId: id,
  machineId: `m${id}`,
  gpuName,
  gpuCount,
  vramGb,
  gpuPricePerHour: 0.3,
  storagePricePerHour: 0.01,
  pricePerHour: 0.31,
  reliability: 0.99,
  verified: true,
  downMbps: 500,
  upMbps: 500,
  location: null,
  cudaMaxGood: cuda,
  dlperf: null,
  directPorts: 10,
});

// A 4090 as Vast.ai lists it (gpu_ram 24564 MB → 24.6), two A100s, an old card.
const offers = [
  offer('1', 'RTX 4090', 1, 24.6, 12.4),
  offer('2', 'A100 SXM4', 2, 81.9, 12.2),
  offer('3', 'GTX 1080', 1, 8.2, 11.4),
];
const ids = (cs: string[]) => filterOffers(offers, cs.map(parseConstraint));

describe('constraints on offers', () => {
  it('what an offer says of a node on it', () => {
    expect(offerCapabilities(offers[0]!)).toEqual({
      os: 'linux',
      'gpu.count': 1,
      'gpu.vram': 24600 * 1024 ** 2,
      'gpu.vram.max': 24600 * 1024 ** 2,
      'gpu.cuda': '12.4',
    });
  });

  it.each([
    [['gpu.vram >= 24GB'], ['1', '2']],
    [['gpu.vram.max >= 40GB'], ['2']],
    [['gpu.count >= 2'], ['2']],
    [['cuda >= 12.3'], ['1']],
    [
      ['os == linux', 'gpu.vram >= 16GB', 'cuda >= 12'],
      ['1', '2'],
    ],
    [['python.version >= 3.11'], ['1', '2', '3']], // an offer cannot tell: the join checks it
  ])('%j → offers %j', (cs, want) => {
    expect(ids(cs).offers.map((o) => o.offerId)).toEqual(want);
    expect(ids(cs).emptiedBy).toBeNull();
  });

  it('names the first constraint that left no offer', () => {
    const r = ids(['gpu.vram >= 16GB', 'gpu.count >= 8', 'cuda >= 13']);
    expect(r.offers).toEqual([]);
    expect(r.emptiedBy?.text).toBe('gpu.count >= 8');
  });
});
