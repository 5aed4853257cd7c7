// The interruptible market in offer search: the price beside on-demand, and a search that
// asks for it (sorted by, and capped on, the minimum bid plus storage).
import { describe, expect, test } from 'vitest';
import { OfferFilter, type OfferFilterInput } from '../../contract/offer';
import { buildOfferQuery } from './filters';
import { offerFromRow, selectOffers } from './offers';

/** A search row (search_offers.yaml's fields), 0.15 $/GB/month storage. */
function row(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 1001,
    machine_id: 30001,
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    gpu_ram: 24564,
    dph_base: 0.4,
    min_bid: 0.21,
    storage_cost: 0.15,
    reliability: 0.995,
    verification: 'verified',
    inet_down: 850,
    inet_up: 780,
    direct_port_count: 64,
    disk_space: 512,
    rentable: true,
    rented: false,
    ...over,
  };
}

const filter = (f: OfferFilterInput = {}) => OfferFilter.parse(f);

describe('the interruptible price of an offer', () => {
  test.each<[string, Record<string, unknown>, number | undefined]>([
    ['min_bid plus the same storage as on-demand (72 GB: 0.015)', {}, 0.225],
    ['a free minimum is still storage', { min_bid: 0 }, 0.015],
    ['no min_bid: the offer takes no bid', { min_bid: undefined }, undefined],
    ['a min_bid that is not a number: no bid', { min_bid: '0.2' }, undefined],
  ])('%s', (_n, over, expected) => {
    const o = offerFromRow(row(over), 72);
    expect(o?.interruptiblePricePerHour).toBe(expected);
    expect(o?.pricePerHour).toBe(0.415); // on-demand is untouched
  });
});

describe('selectOffers on the interruptible market', () => {
  const rows = [
    row({ id: 1, machine_id: 1, dph_base: 0.3, min_bid: 0.28 }), // on-demand cheapest
    row({ id: 2, machine_id: 2, dph_base: 0.5, min_bid: 0.12 }), // bid cheapest
    row({ id: 3, machine_id: 3, dph_base: 0.45, min_bid: undefined }), // no bid
  ];

  test('on-demand: cheapest on-demand first, offers without a bid kept', () => {
    expect(selectOffers(rows, filter({ diskGb: 72 }), new Set()).map((o) => o.offerId)).toEqual([
      '1',
      '3',
      '2',
    ]);
  });

  test('interruptible: cheapest bid first, offers that take no bid left out', () => {
    const offers = selectOffers(rows, filter({ diskGb: 72, interruptible: true }), new Set());
    expect(offers.map((o) => o.offerId)).toEqual(['2', '1']);
  });

  test('interruptible: the price cap is on the bid price, not on-demand', () => {
    const offers = selectOffers(
      rows,
      filter({ diskGb: 72, interruptible: true, maxPrice: 0.2 }),
      new Set(),
    );
    expect(offers.map((o) => o.offerId)).toEqual(['2']); // 0.135 all-in; its on-demand is 0.515
  });
});

describe('buildOfferQuery on the interruptible market', () => {
  test('asks for bid offers, cheapest minimum first', () => {
    const q = buildOfferQuery(filter({ interruptible: true }));
    expect(q).toMatchObject({ type: 'bid', order: [['min_bid', 'asc']] });
    expect(q).not.toHaveProperty('dph_total');
  });

  test('caps min_bid, not dph_total (an expensive on-demand machine may bid cheap)', () => {
    const q = buildOfferQuery(filter({ interruptible: true, maxPrice: 0.3 }));
    expect(q.min_bid).toEqual({ lte: 0.3 });
    expect(q).not.toHaveProperty('dph_total');
  });

  test('on-demand stays as it was', () => {
    const q = buildOfferQuery(filter({ maxPrice: 0.3 }));
    expect(q).toMatchObject({ type: 'on-demand', dph_total: { lte: 0.3 } });
    expect(q).not.toHaveProperty('min_bid');
  });
});
