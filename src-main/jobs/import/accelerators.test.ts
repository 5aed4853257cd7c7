import { describe, expect, it } from 'vitest';
import { parseAccelerators } from './accelerators';
import { tenderGpu } from './gpu-catalog';

describe('SkyPilot accelerators', () => {
  it.each([
    ['A100:8', [['A100', 8]], true],
    ['A100', [['A100', 1]], true],
    ['A100-80GB:4', [['A100-80GB', 4]], true],
    [
      '{A100-80GB:8, H100:8}',
      [
        ['A100-80GB', 8],
        ['H100', 8],
      ],
      false,
    ],
    [
      ['K80:1', 'V100:1', 'T4:1'],
      [
        ['K80', 1],
        ['V100', 1],
        ['T4', 1],
      ],
      true,
    ],
    [{ A100: 8 }, [['A100', 8]], false],
    [
      { 'A100:8': null, 'H100:8': null },
      [
        ['A100', 8],
        ['H100', 8],
      ],
      false,
    ],
    [
      [{ T4: 1 }, { V100: null }],
      [
        ['T4', 1],
        ['V100', 1],
      ],
      true,
    ],
    ['A100:0.5', [['A100', 0.5]], true],
  ])('%j → %j (ordered: %s)', (value, options, ordered) => {
    expect(parseAccelerators(value)).toEqual({
      options: options.map(([name, count]) => ({ name, count })),
      ordered,
    });
  });

  it.each([['A100:x'], ['A100:8:2'], [''], [42], [[]], [{ A100: -1 }]])(
    '%j is refused',
    (value) => {
      expect(parseAccelerators(value)).toHaveProperty('error');
    },
  );
});

describe('GPU names Tender can rent', () => {
  it.each([
    ['A100', { gpu: 'A100' }],
    ['A100-80GB', { gpu: 'A100', minVramGb: 80 }],
    ['H100', { gpu: 'H100' }],
    ['RTX4090', { gpu: 'RTX 4090' }],
    ['A10G', { gpu: 'A10G' }],
    ['L4', { gpu: 'L4' }],
    ['L40S', { gpu: 'L40S' }],
    ['A6000', { gpu: 'RTX A6000' }],
    ['H100-MEGA', { gpu: 'H100' }],
    ['A100-80GB-SXM', { gpu: 'A100', minVramGb: 80 }],
    ['tpu-v2-8', undefined],
    ['K80', undefined],
    ['Inferentia', undefined],
    ['Trainium', undefined],
  ])('%s → %j', (name, expected) => {
    expect(tenderGpu(name)).toEqual(expected);
  });
});
