import { describe, expect, it } from 'vitest';
import { PoolSpec } from '../../contract/job';
import { filterOfShape, parseShape, regionInput, shapeNodes } from './shape';

const pool = (p: Record<string, unknown>) => PoolSpec.parse({ provider: 'runpod', ...p });

describe('shapeNodes', () => {
  it('makes one shape per count with the pool fields, an offer picked per node first', () => {
    expect(
      shapeNodes(
        pool({
          count: 2,
          gpu: 'RTX 4090',
          verified: true,
          offers: ['NVIDIA GeForce RTX 4090|SECURE'],
        }),
      ),
    ).toEqual([
      { gpu: 'RTX 4090', verified: true, offerId: 'NVIDIA GeForce RTX 4090|SECURE' },
      { gpu: 'RTX 4090', verified: true },
    ]);
  });

  it.each([
    [{ min_reliability: 0.9 }, /min_reliability is not supported/],
    [{ min_down_mbps: 100 }, /min_down_mbps is not supported/],
    [{ min_up_mbps: 100 }, /min_up_mbps is not supported/],
    [{ offers: ['12345'] }, /offerId/],
    [{ region: 'eu west' }, /region/],
  ])('refuses %j as bad input', (p, message) => {
    expect(() => shapeNodes(pool(p))).toThrow(message);
    try {
      shapeNodes(pool(p));
    } catch (err) {
      expect((err as { code?: string }).code).toBe('bad_input');
    }
  });
});

describe('parseShape and the search it runs', () => {
  it('reads a shape into a filter', () => {
    const shape = parseShape({
      gpu: 'A100',
      gpu_count: 2,
      disk_gb: 50,
      max_price: 3,
      interruptible: true,
      ignored: 1,
    });
    expect(filterOfShape(shape)).toMatchObject({
      gpu: 'A100',
      gpuCount: 2,
      diskGb: 50,
      maxPrice: 3,
      interruptible: true,
    });
  });

  it('refuses a bad shape as fatal', () => {
    expect(() => parseShape({ gpu_count: 0 })).toThrow(/bad runpod node shape: gpu_count/);
  });

  it('sends a data centre id or a country code, uppercase', () => {
    expect(regionInput('eu-ro-1')).toEqual({ dataCenterId: 'EU-RO-1' });
    expect(regionInput('us')).toEqual({ countryCode: 'US' });
    expect(regionInput(undefined)).toEqual({});
  });
});
