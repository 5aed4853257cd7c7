import { describe, expect, test } from 'vitest';
import { OfferFilter, type OfferFilterInput } from '../../contract/offer';
import { ProviderError } from '../provider';
import { buildOfferQuery, effectiveDiskGb, regionCodes } from './filters';

const query = (input: OfferFilterInput, extra = 0) =>
  buildOfferQuery(OfferFilter.parse(input), extra);

/** The query for an empty filter: every safe default, nothing else. */
const DEFAULTS = {
  rentable: { eq: true },
  rented: { eq: false },
  external: { eq: false },
  verified: { eq: true },
  num_gpus: { eq: 1 },
  reliability: { gte: 0.9 },
  inet_down: { gte: 128 },
  direct_port_count: { gte: 1 },
  disk_space: { gte: 32 },
  order: [['dph_total', 'asc']],
  type: 'on-demand',
  allocated_storage: 32,
  limit: 64,
};

describe('buildOfferQuery', () => {
  test('an empty filter asks for the safe defaults only', () => {
    expect(query({})).toEqual(DEFAULTS);
  });

  test.each<[string, OfferFilterInput, Record<string, unknown>]>([
    ['gpu name with underscores', { gpu: 'RTX_4090' }, { gpu_name: { eq: 'RTX 4090' } }],
    ['gpu name as Vast spells it', { gpu: 'H100 SXM' }, { gpu_name: { eq: 'H100 SXM' } }],
    [
      'several gpu names',
      { gpu: 'RTX_4090, RTX_3090' },
      { gpu_name: { in: ['RTX 4090', 'RTX 3090'] } },
    ],
    [
      'a family name: its Vast variants',
      { gpu: 'A100' },
      { gpu_name: { in: ['A100 SXM4', 'A100 PCIE', 'A100X'] } },
    ],
    [
      'a family in lower case, by its number',
      { gpu: '4090' },
      { gpu_name: { in: ['RTX 4090', 'RTX 4090D'] } },
    ],
    ['gpu count', { gpuCount: 4 }, { num_gpus: { eq: 4 } }],
    ['min VRAM in GB → gpu_ram in MB (×1000)', { minVramGb: 24 }, { gpu_ram: { gte: 24_000 } }],
    ['fractional VRAM', { minVramGb: 7.5 }, { gpu_ram: { gte: 7_500 } }],
    ['price cap on the all-in dph_total', { maxPrice: 0.5 }, { dph_total: { lte: 0.5 } }],
    ['reliability', { minReliability: 0.99 }, { reliability: { gte: 0.99 } }],
    ['reliability 0 is kept, not defaulted', { minReliability: 0 }, { reliability: { gte: 0 } }],
    ['download', { minDownMbps: 500 }, { inet_down: { gte: 500 } }],
    ['upload', { minUpMbps: 200 }, { inet_up: { gte: 200 } }],
    ['verified asked', { verified: true }, { verified: { eq: true } }],
    [
      'disk: disk_space and allocated_storage',
      { diskGb: 100 },
      { disk_space: { gte: 100 }, allocated_storage: 100 },
    ],
    [
      'disk under Vast.ai minimum is raised to 8',
      { diskGb: 3 },
      { disk_space: { gte: 8 }, allocated_storage: 8 },
    ],
    ['region by name', { region: 'North_America' }, { geolocation: { in: ['US', 'CA'] } }],
    ['region by codes', { region: 'se,no' }, { geolocation: { in: ['SE', 'NO'] } }],
    ['limit', { limit: 10 }, { limit: 10 }],
  ])('%s', (_n, input, expected) => {
    expect(query(input)).toEqual({ ...DEFAULTS, ...expected });
  });

  test('verified: false drops the filter (any machine), it does not ask for unverified ones', () => {
    const q = query({ verified: false });

    expect(q).not.toHaveProperty('verified');
    expect(q).toMatchObject({ rentable: { eq: true }, rented: { eq: false } });
  });

  test('extra room for excluded hosts widens the page, up to 500', () => {
    expect(query({ limit: 10 }, 3).limit).toBe(13);
    expect(query({ limit: 499 }, 40).limit).toBe(500);
  });
});

describe('regionCodes', () => {
  test.each([
    ['Europe', 26, 'DE'],
    ['europe', 26, 'SE'],
    ['North America', 2, 'US'],
    ['south_america', 3, 'BR'],
    ['Asia', 18, 'JP'],
    ['Oceania', 2, 'AU'],
    ['Africa', 2, 'ZA'],
    ['US', 1, 'US'],
    ['[SE, NO]', 2, 'NO'],
    ['de , fr', 2, 'FR'],
  ])('%s', (region, count, contains) => {
    const codes = regionCodes(region);
    expect(codes).toHaveLength(count);
    expect(codes).toContain(contains);
  });

  test.each(['Mars', 'USA', 'U', ',', '[]'])('refuses %j with a hint', (region) => {
    expect(() => regionCodes(region)).toThrow(ProviderError);
    try {
      regionCodes(region);
    } catch (e) {
      expect((e as ProviderError).opts.hint).toMatch(/two-letter country codes/);
      expect((e as ProviderError).opts.fatal).toBe(true);
    }
  });
});

describe('effectiveDiskGb', () => {
  test.each([
    [1, 8],
    [8, 8],
    [8.2, 9],
    [512, 512],
  ])('effectiveDiskGb(%d) = %d', (asked, used) => {
    expect(effectiveDiskGb(asked)).toBe(used);
  });
});
