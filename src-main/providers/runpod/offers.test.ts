import { describe, expect, it } from 'vitest';
import { OfferFilter } from '../../contract/offer';
import type { GpuTypeRow } from './api-client';
import { bidPerGpu, offersOf, selectOffers } from './offers';

function row(
  over: Partial<GpuTypeRow> & { price?: number | null; bid?: number | null; stock?: string | null },
): GpuTypeRow {
  const { price = 0.69, bid = 0.35, stock = 'High', ...rest } = over;
  return {
    id: 'NVIDIA GeForce RTX 4090',
    displayName: 'RTX 4090',
    memoryInGb: 24,
    maxGpuCount: 8,
    secureCloud: true,
    communityCloud: true,
    lowestPrice: { uninterruptablePrice: price, minimumBidPrice: bid, stockStatus: stock },
    ...rest,
  };
}

const filter = (f: Record<string, unknown> = {}) => OfferFilter.parse(f);

describe('offersOf: one lowestPrice answer → offers', () => {
  it('prices the whole pod: per-GPU prices × gpuCount; bid from minimumBidPrice', () => {
    const [o] = offersOf([row({ price: 0.69, bid: 0.35 })], 'SECURE', filter({ gpuCount: 2 }));
    expect(o).toMatchObject({
      provider: 'runpod',
      offerId: 'NVIDIA GeForce RTX 4090|SECURE',
      gpuName: 'RTX 4090',
      gpuCount: 2,
      vramGb: 24,
      pricePerHour: 1.38,
      interruptiblePricePerHour: 0.7,
      verified: true,
      reliability: null, // RunPod publishes no host reliability score
    });
  });

  it.each([
    ['out of stock (stockStatus null)', row({ stock: null })],
    ['no on-demand price', row({ price: null })],
    ['no lowestPrice', { ...row({}), lowestPrice: null }],
    ['not in that cloud', row({ secureCloud: false })],
    ['more GPUs than a machine has', row({ maxGpuCount: 1 })],
  ])('leaves out a type %s', (_why, r) => {
    expect(offersOf([r], 'SECURE', filter({ gpuCount: 2 }))).toEqual([]);
  });

  it('has no interruptible price without a bid price; community is not verified', () => {
    const [o] = offersOf([row({ bid: null })], 'COMMUNITY', filter());
    expect(o?.interruptiblePricePerHour).toBeUndefined();
    expect(o?.verified).toBe(false);
  });
});

describe('selectOffers', () => {
  const offers = [
    ...offersOf(
      [
        row({ price: 0.69, bid: 0.35 }),
        row({
          id: 'NVIDIA A100 80GB PCIe',
          displayName: 'A100 PCIe',
          memoryInGb: 80,
          price: 1.64,
          bid: null,
        }),
      ],
      'SECURE',
      filter(),
    ),
    ...offersOf([row({ price: 0.34, bid: 0.2 })], 'COMMUNITY', filter()),
  ];
  const ids = (f: Record<string, unknown>) => selectOffers(offers, filter(f)).map((o) => o.offerId);

  it('puts the cheapest first', () => {
    expect(ids({})).toEqual([
      'NVIDIA GeForce RTX 4090|COMMUNITY',
      'NVIDIA GeForce RTX 4090|SECURE',
      'NVIDIA A100 80GB PCIe|SECURE',
    ]);
  });

  it.each([
    [{ gpu: 'RTX_4090' }, ['NVIDIA GeForce RTX 4090|COMMUNITY', 'NVIDIA GeForce RTX 4090|SECURE']],
    [{ gpu: 'a100' }, ['NVIDIA A100 80GB PCIe|SECURE']],
    [{ gpu: 'h100' }, []],
    [{ minVramGb: 40 }, ['NVIDIA A100 80GB PCIe|SECURE']],
    [{ maxPrice: 0.5 }, ['NVIDIA GeForce RTX 4090|COMMUNITY']],
    [{ verified: true }, ['NVIDIA GeForce RTX 4090|SECURE', 'NVIDIA A100 80GB PCIe|SECURE']],
    [
      { interruptible: true },
      ['NVIDIA GeForce RTX 4090|COMMUNITY', 'NVIDIA GeForce RTX 4090|SECURE'],
    ],
    [{ interruptible: true, maxPrice: 0.3 }, ['NVIDIA GeForce RTX 4090|COMMUNITY']],
    [{ limit: 1 }, ['NVIDIA GeForce RTX 4090|COMMUNITY']],
  ])('honours %j', (f, expected) => {
    expect(ids(f)).toEqual(expected);
  });
});

describe('bidPerGpu', () => {
  const [offer] = offersOf([row({ bid: 0.2 })], 'COMMUNITY', filter({ gpuCount: 2 }));
  it('defaults to the minimum + 10%, and splits a bid asked for over the GPUs', () => {
    expect(bidPerGpu(offer!, undefined)).toBe(0.22);
    expect(bidPerGpu(offer!, 1)).toBe(0.5);
  });
});
