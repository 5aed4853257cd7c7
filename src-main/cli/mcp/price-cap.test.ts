import { describe, expect, it } from 'vitest';
import { PoolSpec, type Offer, type OfferFilter } from '../../contract';
import { capPrice } from './price-cap';

const offer = (price: number, provider = 'vastai'): Offer => ({
  provider,
  offerId: String(Math.round(price * 1000)),
  machineId: '1',
  gpuName: 'RTX 4090',
  gpuCount: 1,
  vramGb: 24,
  gpuPricePerHour: price,
  storagePricePerHour: 0,
  pricePerHour: price,
  reliability: 0.99,
  verified: true,
  downMbps: 100,
  upMbps: 100,
  location: null,
  cudaMaxGood: null,
  dlperf: null,
  directPorts: 0,
});

function deps(offers: Offer[]) {
  const asked: { providers: string[]; filter: OfferFilter }[] = [];
  return {
    asked,
    d: {
      bills: (kind: string) => kind !== 'local' && kind !== 'ssh',
      takenBySession: 0,
      searchOffers: async (providers: string[], filter: OfferFilter) => {
        asked.push({ providers, filter });
        return offers;
      },
    },
  };
}

describe('the price cap of a run', () => {
  it('a provider that bills nothing: no cap, no search', async () => {
    const { d, asked } = deps([]);
    const cap = await capPrice(PoolSpec.parse({ provider: 'local', count: 3 }), d);
    expect(cap.capPerHour).toBe(0);
    expect(cap.pool.max_price).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it("the agent's max_price is the cap", async () => {
    const { d, asked } = deps([]);
    const cap = await capPrice(PoolSpec.parse({ provider: 'vastai', max_price: 0.5 }), d);
    expect(cap).toMatchObject({ capPerHour: 0.5, how: 'max_price $0.50/h' });
    expect(asked).toEqual([]);
  });

  it('without one, the count-th cheapest matching offer sets it, and binds the rental', async () => {
    const { d, asked } = deps([offer(0.35), offer(0.3), offer(0.45)]);
    const cap = await capPrice(
      PoolSpec.parse({ provider: 'vastai', count: 2, gpu: 'RTX 4090' }),
      d,
    );
    expect(cap.capPerHour).toBe(0.35);
    expect(cap.pool.max_price).toBe(0.35);
    expect(asked[0]).toMatchObject({ providers: ['vastai'], filter: { gpu: 'RTX 4090' } });
    expect(asked[0]!.filter.maxPrice).toBeUndefined();
  });

  it('rounds a float price up to the hundredth of a cent', async () => {
    const { d } = deps([offer(0.30000000000000004)]);
    expect((await capPrice(PoolSpec.parse({ provider: 'vastai' }), d)).capPerHour).toBe(0.3);
    const { d: d2 } = deps([offer(0.30011)]);
    expect((await capPrice(PoolSpec.parse({ provider: 'vastai' }), d2)).capPerHour).toBe(0.3002);
  });

  it('past the offers the earlier runs of the session are about to rent', async () => {
    const { d } = deps([offer(0.35), offer(0.3), offer(0.45), offer(0.4)]);
    const cap = await capPrice(PoolSpec.parse({ provider: 'vastai', count: 1 }), {
      ...d,
      takenBySession: 2,
    });
    expect(cap.capPerHour).toBe(0.4);
    expect(cap.how).toMatch(/3rd cheapest/);
  });

  it('a chain searches every member', async () => {
    const { d, asked } = deps([offer(0.2, 'runpod')]);
    await capPrice(PoolSpec.parse({ provider: ['runpod', 'vastai'] }), d);
    expect(asked[0]!.providers).toEqual(['runpod', 'vastai']);
  });

  it.each([
    [[], 1, /no offers of vastai match this pool, for 1 node/],
    [[offer(0.3)], 2, /only 1 offer of vastai matches this pool, for 2 nodes/],
  ])('too few offers: refused before anything is rented', async (offers, count, message) => {
    const { d } = deps(offers);
    await expect(capPrice(PoolSpec.parse({ provider: 'vastai', count }), d)).rejects.toThrow(
      message,
    );
  });

  it('an interruptible pool is refused: its bid is no bound', async () => {
    const { d } = deps([offer(0.1)]);
    await expect(
      capPrice(PoolSpec.parse({ provider: 'vastai', interruptible: true, max_price: 1 }), d),
    ).rejects.toThrow(/interruptible/);
  });
});
