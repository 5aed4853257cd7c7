import { describe, expect, it } from 'vitest';
import type { Offer } from '../../../src-main/contract';
import {
  nextSort,
  offerKey,
  type Sort,
  poolOf,
  poolProblem,
  sortOffers,
  valueOf,
} from './offer-sort';

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
  const keysOf = (...list: Offer[]) => new Set(list.map(offerKey));
  it('is the picked offers first, then the cheapest up to the count', () => {
    const { pool, auto } = poolOf(sorted, keysOf(big), 2);
    expect(ids(pool)).toEqual(['2', '1']);
    expect([...auto]).toEqual(['vastai:1']);
  });

  it.each<[string, Sort, string[]]>([
    ['price, low to high', { key: 'price', dir: 'asc' }, ['1', '3']],
    ['price, high to low', { key: 'price', dir: 'desc' }, ['1', '3']],
    ['VRAM, most first', { key: 'vram', dir: 'desc' }, ['1', '3']],
    ['region', { key: 'region', dir: 'asc' }, ['1', '3']],
  ])('fills with the cheapest offers whatever the sort (%s)', (_, sort, want) => {
    const { pool, auto } = poolOf(sortOffers([cheap, mid, big], sort), new Set(), 2);
    expect(ids(pool)).toEqual(want);
    expect([...auto]).toEqual(want.map((id) => `vastai:${id}`));
  });

  it('takes the cheapest offer’s marketplace when nothing is picked, whatever the sort', () => {
    const pod = offer('p1', { provider: 'runpod', pricePerHour: 0.1 });
    const table = sortOffers([cheap, mid, big, pod], { key: 'price', dir: 'desc' });
    expect(ids(poolOf(table, new Set(), 1).pool)).toEqual(['p1']);
  });

  it('is short when too few offers match', () => {
    expect(poolOf(sorted, new Set(), 5).pool).toHaveLength(3);
  });

  it('fills only from the marketplace of the picked offers, else of the cheapest offer', () => {
    const pod = offer('p1', { provider: 'runpod', pricePerHour: 0.25 });
    const pod2 = offer('p2', { provider: 'runpod', pricePerHour: 0.9 });
    const table = sortOffers([cheap, pod, mid, pod2], { key: 'price', dir: 'asc' });
    expect(ids(poolOf(table, keysOf(pod2), 2).pool)).toEqual(['p2', 'p1']);
    expect(ids(poolOf(table, new Set(), 3).pool)).toEqual(['1', '3']); // short: 2 Vast rows
    // The same offer id on two marketplaces is two offers.
    const twin = offer('1', { provider: 'lambda' });
    expect(ids(poolOf([cheap, twin], keysOf(twin), 1).pool)).toEqual(['1']);
    expect(poolOf([cheap, twin], keysOf(twin), 1).pool[0]!.provider).toBe('lambda');
  });

  it.each<[string, Offer[], RegExp | null]>([
    ['one marketplace', [cheap, mid], null],
    ['none', [], null],
    [
      'two marketplaces',
      [cheap, offer('p1', { provider: 'runpod' })],
      /come from Vast\.ai and RunPod: a pool rents from one marketplace/,
    ],
    [
      'three',
      [cheap, offer('p1', { provider: 'runpod' }), offer('l1', { provider: 'lambda' })],
      /Vast\.ai, RunPod and Lambda Cloud/,
    ],
  ])('picked offers from %s: %s', (_, pool, problem) => {
    const found = poolProblem(pool);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });
});

describe('the Provider column', () => {
  it('sorts by the marketplace’s name, cheaper first within one', () => {
    const pod = offer('p1', { provider: 'runpod', pricePerHour: 0.5 });
    const lam = offer('l1', { provider: 'lambda', pricePerHour: 0.6 });
    expect(ids(sortOffers([pod, mid, lam, cheap], { key: 'provider', dir: 'asc' }))).toEqual([
      'l1',
      'p1',
      '1',
      '3',
    ]);
    expect(nextSort({ key: 'price', dir: 'asc' }, 'provider')).toEqual({
      key: 'provider',
      dir: 'asc',
    });
  });
});
