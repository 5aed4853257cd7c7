import { describe, expect, test } from 'vitest';
import type { Offer } from '../../contract/offer';
import { bidPricesOf, defaultBid, judgeBid, planBids, type BidVerdict } from './bids';

describe('defaultBid: the minimum + 10%, in thousandths, never above on-demand', () => {
  test.each<[string, number, number, number]>([
    ['0.21 → 0.231 (not 0.232: 0.21 × 1.1 is 0.23100000000000001)', 0.21, 0.4, 0.231],
    ['rounds up to the thousandth', 0.123, 0.4, 0.136],
    ['capped at on-demand when the margin would pass it', 0.38, 0.4, 0.4],
    ['a minimum equal to on-demand bids on-demand', 0.4, 0.4, 0.4],
    ['a free minimum still bids what Vast.ai accepts', 0, 0.4, 0.001],
  ])('%s', (_n, minBid, onDemand, expected) => {
    expect(defaultBid({ minBid, onDemand })).toBe(expected);
  });
});

describe('judgeBid: a bid against one machine', () => {
  const prices = { minBid: 0.21, onDemand: 0.4 };
  test.each<[string, number | undefined, BidVerdict]>([
    ['none given: the default', undefined, { kind: 'ok', bid: 0.231 }],
    ['between the minimum and on-demand', 0.25, { kind: 'ok', bid: 0.25 }],
    ['exactly the minimum', 0.21, { kind: 'ok', bid: 0.21 }],
    ['exactly on-demand', 0.4, { kind: 'ok', bid: 0.4 }],
    ['above on-demand: refused', 0.41, { kind: 'above_on_demand', onDemand: 0.4 }],
    ['8× on-demand (dstack#1890): refused', 3.2, { kind: 'above_on_demand', onDemand: 0.4 }],
    ['below the minimum: it would sit stopped', 0.2, { kind: 'below_min', minBid: 0.21 }],
  ])('%s', (_n, asked, verdict) => {
    expect(judgeBid(prices, asked)).toEqual(verdict);
  });
});

function offer(id: string, onDemand: number, minBid: number | null): Offer {
  const storage = 0.01;
  return {
    provider: 'vastai',
    offerId: id,
    machineId: `m${id}`,
    gpuName: 'RTX 4090',
    gpuCount: 1,
    vramGb: 24,
    gpuPricePerHour: onDemand,
    storagePricePerHour: storage,
    pricePerHour: onDemand + storage,
    ...(minBid === null ? {} : { interruptiblePricePerHour: minBid + storage }),
    reliability: 0.99,
    verified: true,
    downMbps: 800,
    upMbps: 800,
    location: null,
    cudaMaxGood: 12.4,
    dlperf: null,
    directPorts: 10,
  };
}

describe('bidPricesOf', () => {
  test('an offer that takes a bid: its minimum without storage, and its on-demand GPU price', () => {
    expect(bidPricesOf(offer('1', 0.4, 0.21))).toEqual({ minBid: 0.21, onDemand: 0.4 });
  });
  test('an offer without min_bid takes no bid', () => {
    expect(bidPricesOf(offer('1', 0.4, null))).toBeNull();
  });
});

describe('planBids: which offers a bid goes to', () => {
  // Cheapest interruptible first, as selectOffers sorts an interruptible search.
  const market = [offer('1', 0.4, 0.21), offer('2', 0.5, 0.3), offer('3', 0.9, 0.45)];
  const bidsOf = (plan: ReturnType<typeof planBids>) =>
    plan.kind === 'bids' ? plan.bids.map((b) => [b.offer.offerId, b.bid]) : plan;

  test.each<[string, readonly Offer[], number | undefined, unknown]>([
    [
      'no bid given: each offer at its own default',
      market,
      undefined,
      [
        ['1', 0.231],
        ['2', 0.33],
        ['3', 0.495],
      ],
    ],
    [
      'a bid goes only to offers whose minimum it meets',
      market,
      0.35,
      [
        ['1', 0.35],
        ['2', 0.35],
      ],
    ],
    [
      'an offer whose minimum is above its own on-demand price is no bid at all',
      [offer('1', 0.4, 0.5), offer('2', 0.5, 0.3)],
      undefined,
      [['2', 0.33]],
    ],
    [
      'no offer takes a bid: nothing to bid on (the create says no offer matches)',
      [offer('1', 0.4, null)],
      0.3,
      [],
    ],
  ])('%s', (_n, offers, asked, expected) => {
    expect(bidsOf(planBids(offers, asked))).toEqual(expected);
  });

  test('a bid above the on-demand price of the offer it would go to is refused, naming the fix', () => {
    const plan = planBids(market, 0.45);
    expect(plan).toEqual({
      kind: 'refused',
      message: 'a bid above the on-demand price $0.400/h rents nothing cheaper; use on-demand',
      hint: 'bid at most 0.400, or leave out interruptible and bid',
    });
  });

  test('a bid below every minimum is refused, naming the lowest', () => {
    const plan = planBids(market, 0.1);
    expect(plan.kind).toBe('refused');
    if (plan.kind === 'refused') {
      expect(plan.message).toBe(
        'no matching offer runs at a bid of $0.100/h: the lowest minimum bid is $0.210/h',
      );
      expect(plan.hint).toContain('bid at least 0.210');
    }
  });
});
