import { describe, expect, it } from 'vitest';
import { PoolSpec } from '../../contract';
import { parseShape, shapeNodes } from './shape';

const pool = (p: Record<string, unknown>) => PoolSpec.parse({ provider: 'lambda', ...p });

describe('Lambda node shapes', () => {
  it('one shape per count, with the marketplace fields', () => {
    expect(shapeNodes(pool({ count: 2, gpu: 'A100', max_price: 2 }))).toEqual([
      { gpu: 'A100', max_price: 2 },
      { gpu: 'A100', max_price: 2 },
    ]);
  });

  it('a picked offer goes into its node shape', () => {
    expect(shapeNodes(pool({ count: 1, offers: ['gpu_1x_a10@us-east-1'] }))).toEqual([
      { offerId: 'gpu_1x_a10@us-east-1' },
    ]);
  });

  it.each([[{ interruptible: true }], [{ interruptible: true, bid: 0.5 }]])(
    'refuses %j: Lambda sells no interruptible instances',
    (p) => {
      expect(() => shapeNodes(pool(p))).toThrow(
        expect.objectContaining({
          code: 'bad_input',
          message: 'Lambda Cloud sells no interruptible instances',
        }),
      );
    },
  );

  it('refuses an offer id that is not <type>@<region>, and hosts', () => {
    expect(() => shapeNodes(pool({ offers: ['123'] }))).toThrow(
      expect.objectContaining({ code: 'bad_input' }),
    );
    expect(() => shapeNodes(pool({ hosts: ['a'] }))).toThrow(
      expect.objectContaining({ code: 'bad_input' }),
    );
  });

  it('parseShape refuses a bad shape as fatal', () => {
    expect(() => parseShape({ gpu_count: 0 })).toThrow(/gpu_count/);
    expect(() => parseShape({ interruptible: true })).toThrow(/no interruptible/);
    expect(parseShape({ gpu: 'A10', offerId: 'gpu_1x_a10@us-east-1' })).toEqual({
      gpu: 'A10',
      offerId: 'gpu_1x_a10@us-east-1',
    });
  });
});
