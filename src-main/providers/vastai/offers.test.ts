import { describe, expect, test } from 'vitest';
import { OfferFilter, type OfferFilterInput } from '../../contract/offer';
import { allInPrice, countryOf, offerFromRow, selectOffers } from './offers';

describe('allInPrice', () => {
  test.each<[string, Record<string, unknown>, number, [number, number, number] | null]>([
    [
      "show_instance.yaml's own example: 10 GB at 0.149333 $/GB/month",
      { dph_base: 1.0, dph_total: 1.0020740740740741, storage_cost: 0.14933333333333335 },
      10,
      [1.0, 0.002074, 1.002074],
    ],
    [
      '0.15 $/GB/month, 100 GB: 0.15 × 100 / 720',
      { dph_base: 0.4, storage_cost: 0.15 },
      100,
      [0.4, 0.020833, 0.420833],
    ],
    [
      'dph_total (GPU plus the searched storage) is not the GPU price when dph_base is there',
      { dph_base: 0.4, dph_total: 0.9, storage_cost: 0.15 },
      32,
      [0.4, 0.006667, 0.406667],
    ],
    [
      'no dph_base: dph_total stands for the GPU, storage may count twice, never zero times',
      { dph_total: 0.5, storage_cost: 0.3 },
      72,
      [0.5, 0.03, 0.53],
    ],
    [
      'no storage_cost: dph_total − dph_base is the storage',
      { dph_base: 0.4, dph_total: 0.45 },
      64,
      [0.4, 0.05, 0.45],
    ],
    ['only a GPU price', { dph_base: 0.4 }, 64, [0.4, 0, 0.4]],
    ['free storage', { dph_base: 0.2, storage_cost: 0 }, 500, [0.2, 0, 0.2]],
    ['no price at all', { storage_cost: 0.1 }, 10, null],
    ['a negative price', { dph_base: -1 }, 10, null],
    ['a price that is not a number', { dph_base: '0.4' }, 10, null],
  ])('%s', (_n, raw, disk, expected) => {
    const p = allInPrice(raw, disk);
    if (expected === null) return expect(p).toBeNull();
    expect(p).toEqual({
      gpuPricePerHour: expected[0],
      storagePricePerHour: expected[1],
      pricePerHour: expected[2],
    });
  });
});

/** A search row as search_offers.yaml shows one. */
function row(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 1001,
    ask_contract_id: 1001,
    machine_id: 30001,
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    gpu_ram: 24564,
    dph_base: 0.4,
    dph_total: 0.40667,
    storage_cost: 0.15,
    reliability: 0.995,
    verification: 'verified',
    inet_down: 850,
    inet_up: 780,
    geolocation: 'Sweden, SE',
    cuda_max_good: 12.4,
    dlperf: 70.1,
    direct_port_count: 64,
    disk_space: 512,
    rentable: true,
    rented: false,
    ...over,
  };
}

const filter = (f: OfferFilterInput = {}) => OfferFilter.parse(f);

describe('offerFromRow', () => {
  test('maps a search row, priced for the disk asked', () => {
    expect(offerFromRow(row(), 32)).toEqual({
      provider: 'vastai',
      offerId: '1001',
      machineId: '30001',
      gpuName: 'RTX 4090',
      gpuCount: 1,
      vramGb: 24.6,
      gpuPricePerHour: 0.4,
      storagePricePerHour: 0.006667,
      pricePerHour: 0.406667,
      reliability: 0.995,
      verified: true,
      downMbps: 850,
      upMbps: 780,
      location: 'Sweden, SE',
      cudaMaxGood: 12.4,
      dlperf: 70.1,
      directPorts: 64,
    });
  });

  test.each([
    ['no id', { id: undefined, ask_contract_id: undefined }],
    ['no machine', { machine_id: null }],
    ['no price', { dph_base: undefined, dph_total: undefined }],
    ['no gpu count', { num_gpus: undefined }],
    ['an id that is not a number', { id: 'abc', ask_contract_id: undefined }],
  ])('skips a row with %s', (_n, over) => {
    expect(offerFromRow(row(over), 32)).toBeNull();
  });

  test('reads reliability2 when reliability is absent, and verified as a flag', () => {
    const o = offerFromRow(
      row({ reliability: undefined, reliability2: 0.97, verification: undefined, verified: true }),
      8,
    );
    expect(o?.reliability).toBe(0.97);
    expect(o?.verified).toBe(true);
  });
});

describe('selectOffers', () => {
  test('cheapest all-in first, not cheapest GPU first', () => {
    const rows = [
      row({ id: 1, machine_id: 1, dph_base: 0.3, storage_cost: 3.0 }), // 0.3 + 3×100/720 = 0.7167
      row({ id: 2, machine_id: 2, dph_base: 0.5, storage_cost: 0.1 }), // 0.5139
      row({ id: 3, machine_id: 3, dph_base: 0.45, storage_cost: 0.2 }), // 0.4778
    ];

    const offers = selectOffers(rows, filter({ diskGb: 100 }), new Set());

    expect(offers.map((o) => o.offerId)).toEqual(['3', '2', '1']);
  });

  test('the price cap applies to the all-in price', () => {
    const rows = [
      row({ id: 1, machine_id: 1, dph_base: 0.45, storage_cost: 0.72 }), // 0.45 + 0.1 = 0.55
      row({ id: 2, machine_id: 2, dph_base: 0.48, storage_cost: 0.0072 }), // 0.481
    ];

    const offers = selectOffers(rows, filter({ diskGb: 100, maxPrice: 0.5 }), new Set());

    expect(offers.map((o) => o.offerId)).toEqual(['2']);
  });

  test('failed hosts are left out; rented and unrentable rows too', () => {
    const rows = [
      row({ id: 1, machine_id: 11 }),
      row({ id: 2, machine_id: 12 }),
      row({ id: 3, machine_id: 13, rented: true }),
      row({ id: 4, machine_id: 14, rentable: false }),
    ];

    const offers = selectOffers(rows, filter(), new Set(['11']));

    expect(offers.map((o) => o.machineId)).toEqual(['12']);
  });

  test.each<[string, Record<string, unknown>, OfferFilterInput]>([
    ['another GPU', { gpu_name: 'RTX 3090' }, { gpu: 'RTX_4090' }],
    ['too few GPUs', { num_gpus: 1 }, { gpuCount: 2 }],
    ['too little VRAM', { gpu_ram: 23_000 }, { minVramGb: 24 }],
    ['too unreliable by default', { reliability: 0.85 }, {}],
    ['too unreliable for the filter', { reliability: 0.95 }, { minReliability: 0.99 }],
    ['unverified by default', { verification: 'unverified' }, {}],
    ['too slow a download by default', { inet_down: 100 }, {}],
    ['too slow an upload', { inet_up: 50 }, { minUpMbps: 100 }],
    ['no direct port', { direct_port_count: 0 }, {}],
    ['too small a disk', { disk_space: 20 }, { diskGb: 32 }],
    ['outside the region', { geolocation: 'Texas, US' }, { region: 'Europe' }],
  ])('re-checks what the server should have filtered: %s', (_n, over, f) => {
    expect(selectOffers([row(over)], filter(f), new Set())).toEqual([]);
  });

  test('accepts what the filter allows', () => {
    const rows = [
      row({ gpu_name: 'RTX 4090', num_gpus: 2, verification: 'unverified', reliability: 0.5 }),
    ];

    const offers = selectOffers(
      rows,
      filter({ gpu: 'rtx_4090', gpuCount: 2, verified: false, minReliability: 0.4, region: 'SE' }),
      new Set(),
    );

    expect(offers).toHaveLength(1);
  });

  test('keeps at most `limit`, ties broken by reliability then offer id', () => {
    const rows = [
      row({ id: 20, machine_id: 1, reliability: 0.95 }),
      row({ id: 10, machine_id: 2, reliability: 0.95 }),
      row({ id: 30, machine_id: 3, reliability: 0.99 }),
    ];

    const offers = selectOffers(rows, filter({ limit: 2 }), new Set());

    expect(offers.map((o) => o.offerId)).toEqual(['30', '10']);
  });

  test('skips rows it cannot read instead of failing the search', () => {
    expect(selectOffers([null, 'x', 42, row()], filter(), new Set())).toHaveLength(1);
  });
});

describe('countryOf', () => {
  test.each([
    ['Sweden, SE', 'SE'],
    ['Yutakachō, Shinagawa District, Tokyo, JP', 'JP'],
    ['US', 'US'],
    ['California, United States', null],
    [null, null],
  ])('%j → %j', (loc, code) => {
    expect(countryOf(loc)).toBe(code);
  });
});
