import { describe, expect, it } from 'vitest';
import { OfferFilter } from '../../contract';
import type { InstanceTypeEntry } from './api-client';
import { offersOf, parseOfferId, selectOffers, vramOf } from './offers';

const entry = (
  name: string,
  gpu: string,
  cents: number,
  gpus: number,
  regions: string[],
  storage = 512,
): InstanceTypeEntry => ({
  instance_type: {
    name,
    description: `${gpus}x ${gpu}`,
    gpu_description: gpu,
    price_cents_per_hour: cents,
    specs: { vcpus: 30, memory_gib: 200, storage_gib: storage, gpus },
  },
  regions_with_capacity_available: regions.map((r) => ({ name: r, description: `${r} place` })),
});

const TYPES = [
  entry('gpu_1x_a100_sxm4', 'A100 (40 GB SXM4)', 129, 1, ['us-east-1']),
  entry('gpu_1x_a10', 'A10 (24 GB PCIe)', 75, 1, ['us-west-1', 'us-east-1']),
  entry('gpu_8x_h100_sxm5', 'H100 (80 GB SXM5)', 2392, 8, ['us-south-1']),
  entry('gpu_1x_h100_pcie', 'H100 (80 GB PCIe)', 249, 1, []), // no capacity: no offer
  entry('cpu_4x_general', '', 20, 0, ['us-east-1']), // no GPU: no offer
];

describe('Lambda instance types → offers', () => {
  it('one offer per type × region with capacity, priced for the whole VM', () => {
    const offers = offersOf(TYPES);
    expect(offers.map((o) => o.offerId)).toEqual([
      'gpu_1x_a100_sxm4@us-east-1',
      'gpu_1x_a10@us-west-1',
      'gpu_1x_a10@us-east-1',
      'gpu_8x_h100_sxm5@us-south-1',
    ]);
    const h100 = offers.find((o) => o.instanceType === 'gpu_8x_h100_sxm5')!;
    expect(h100).toMatchObject({
      provider: 'lambda',
      gpuName: 'H100 (80 GB SXM5)',
      gpuCount: 8,
      vramGb: 80,
      pricePerHour: 23.92,
      gpuPricePerHour: 23.92,
      storagePricePerHour: 0,
      location: 'us-south-1 place',
      reliability: null, // Lambda publishes no host reliability score
    });
    expect(h100.interruptiblePricePerHour).toBeUndefined();
  });

  it.each([
    ['A100 (40 GB SXM4)', 40],
    ['8x H100 (80 GB SXM5)', 80],
    ['GH200 (96 GB)', 96],
    ['RTX 6000', 0],
  ])('vram of %s is %d', (d, gb) => expect(vramOf(d)).toBe(gb));

  it.each<[Record<string, unknown>, string[]]>([
    [{}, ['gpu_1x_a10@us-east-1', 'gpu_1x_a10@us-west-1', 'gpu_1x_a100_sxm4@us-east-1']],
    [{ gpu: 'a100' }, ['gpu_1x_a100_sxm4@us-east-1']],
    [{ gpu: 'A10' }, ['gpu_1x_a10@us-east-1', 'gpu_1x_a10@us-west-1']],
    [{ gpu: 'H100', gpuCount: 8 }, ['gpu_8x_h100_sxm5@us-south-1']],
    [{ maxPrice: 1 }, ['gpu_1x_a10@us-east-1', 'gpu_1x_a10@us-west-1']],
    [{ minVramGb: 30 }, ['gpu_1x_a100_sxm4@us-east-1']],
    [{ region: 'us-west-1' }, ['gpu_1x_a10@us-west-1']],
    [
      { region: 'us' },
      ['gpu_1x_a10@us-east-1', 'gpu_1x_a10@us-west-1', 'gpu_1x_a100_sxm4@us-east-1'],
    ],
    [{ diskGb: 1000 }, []],
    [{ interruptible: true }, []],
    [{ limit: 1 }, ['gpu_1x_a10@us-east-1']],
  ])('filter %j → %j, cheapest first', (filter, ids) => {
    expect(
      selectOffers(offersOf(TYPES), OfferFilter.parse(filter), () => 512).map((o) => o.offerId),
    ).toEqual(ids);
  });

  it('parses offer ids', () => {
    expect(parseOfferId('gpu_1x_a10@us-east-1')).toEqual({
      instanceType: 'gpu_1x_a10',
      region: 'us-east-1',
    });
    expect(parseOfferId('12345')).toBeNull();
  });
});
