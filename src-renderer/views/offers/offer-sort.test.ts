import { describe, expect, it } from 'vitest';
import type { Offer } from '../../../src-main/contract';
import { nextSort, poolOf, sortOffers, valueOf } from './offer-sort';

const offer = (id: string, over: Partial<Offer>): Offer => ({
  provider: 'vastai',
  offerId: id,
  machineId: `m${id}`,
  gpuName: 'RTX 4090',
  gpuCount: 1,
  vramGb: 24,
  gpuPricePerHour: 0.3,
  storagePricePerHour: 0.01,
  pricePerHour: 0.31,
  reliability: 0.99,
  verified: true,
  downMbps: 500,
  upMbps: 500,
  location: 'Sweden, SE',
  cudaMaxGood: 12.4,
  dlperf: 60,
  directPorts: 10,
  ...over,
});

const cheap = offer('1', { pricePerHour: 0.2, vramGb: 24, location: 'Texas, US', dlperf: null });
const big = offer('2', { pricePerHour: 1.1, vramGb: 80, gpuName: 'A100 SXM4', location: null });
const mid = offer('3', { pricePerHour: 0.5, vramGb: 48, gpuName: 'RTX A6000' });
const ids = (list: Offer[]) => list.map((o) => o.offerId);

describe('offer sorting', () => {
  it('sorts by the interruptible price, offers that take no bid last either way', () => {
    const bidCheap = offer('4', { pricePerHour: 0.9, interruptiblePricePerHour: 0.15 });
    const bidDear = offer('5', { pricePerHour: 0.4, interruptiblePricePerHour: 0.3 });
    expect(ids(sortOffers([cheap, bidDear, bidCheap], { key: 'bid', dir: 'asc' }))).toEqual([
      '4',
      '5',
      '1',
    ]);
    expect(ids(sortOffers([cheap, bidCheap, bidDear], { key: 'bid', dir: 'desc' }))).toEqual([
      '5',
      '4',
      '1',
    ]);
    expect(nextSort({ key: 'price', dir: 'asc' }, 'bid')).toEqual({ key: 'bid', dir: 'asc' });
  });

  it('sorts by any column, either way', () => {
    expect(ids(sortOffers([big, cheap, mid], { key: 'price', dir: 'asc' }))).toEqual([
      '1',
      '3',
      '2',
    ]);
    expect(ids(sortOffers([cheap, mid, big], { key: 'vram', dir: 'desc' }))).toEqual([
      '2',
      '3',
      '1',
    ]);
    expect(ids(sortOffers([cheap, mid, big], { key: 'gpu', dir: 'asc' }))).toEqual(['2', '1', '3']);
  });

  it('puts missing values last whichever way, ties to the cheaper offer', () => {
    expect(ids(sortOffers([big, cheap, mid], { key: 'region', dir: 'asc' }))).toEqual([
      '3',
      '1',
      '2',
    ]);
    expect(ids(sortOffers([big, cheap, mid], { key: 'region', dir: 'desc' }))).toEqual([
      '1',
      '3',
      '2',
    ]);
    const twin = offer('4', { pricePerHour: 0.1, vramGb: 48 });
    expect(ids(sortOffers([mid, twin], { key: 'vram', dir: 'desc' }))).toEqual(['4', '3']);
  });

  it('a first click sorts the useful way; a second click flips', () => {
    expect(nextSort({ key: 'price', dir: 'asc' }, 'vram')).toEqual({ key: 'vram', dir: 'desc' });
    expect(nextSort({ key: 'vram', dir: 'desc' }, 'vram')).toEqual({ key: 'vram', dir: 'asc' });
  });

  it('scores work per dollar when the provider gives a score', () => {
    expect(valueOf(mid)).toBeCloseTo(120);
    expect(valueOf(cheap)).toBeNull();
  });
});

describe('the pool', () => {
  const sorted = [cheap, mid, big];
  it('is the picked offers first, then the top of the table up to the count', () => {
    const { pool, auto } = poolOf(sorted, new Set(['2']), 2);
    expect(ids(pool)).toEqual(['2', '1']);
    expect([...auto]).toEqual(['1']);
  });

  it('is short when too few offers match', () => {
    expect(poolOf(sorted, new Set(), 5).pool).toHaveLength(3);
  });
});
