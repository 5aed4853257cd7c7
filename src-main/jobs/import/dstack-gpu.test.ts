import { describe, expect, it } from 'vitest';
import { parseDstackGpu } from './dstack-gpu';

const one = { min: 1, max: 1 };

describe('dstack gpu specs', () => {
  it.each([
    ['A100:8', { names: ['A100'], count: { min: 8, max: 8 } }],
    ['A100', { names: ['A100'], count: one }],
    [2, { names: [], count: { min: 2, max: 2 } }],
    ['24GB..', { names: [], count: one, memory: { min: 24 } }],
    ['24GB..80GB:2', { names: [], count: { min: 2, max: 2 }, memory: { min: 24, max: 80 } }],
    ['A100:40GB:2', { names: ['A100'], count: { min: 2, max: 2 }, memory: { min: 40, max: 40 } }],
    ['A100,H100:8', { names: ['A100', 'H100'], count: { min: 8, max: 8 } }],
    ['nvidia:A100:2..4', { vendor: 'nvidia', names: ['A100'], count: { min: 2, max: 4 } }],
    [
      'amd:MI300X:1TB',
      { vendor: 'amd', names: ['MI300X'], count: one, memory: { min: 1024, max: 1024 } },
    ],
    ['1..', { names: [], count: { min: 1 } }],
    [['A100', 'H100'], { names: ['A100', 'H100'], count: one }],
    [
      { name: ['A100', 'H100'], count: '2..4' },
      { names: ['A100', 'H100'], count: { min: 2, max: 4 } },
    ],
    [
      { name: 'H100', memory: '80GB', count: 8 },
      { names: ['H100'], count: { min: 8, max: 8 }, memory: { min: 80, max: 80 } },
    ],
    [
      { memory: '16GB..24GB', total_memory: '48GB..' },
      { names: [], count: one, memory: { min: 16, max: 24 }, totalMemory: { min: 48 } },
    ],
    [
      { vendor: 'tpu', name: 'v5litepod-8' },
      { vendor: 'tpu', names: ['v5litepod-8'], count: one },
    ],
    ['512MB', { names: [], count: one, memory: { min: 0.5, max: 0.5 } }],
  ])('%j → %j', (value, expected) => {
    expect(parseDstackGpu(value)).toEqual(expected);
  });

  it.each([
    ['A100:H100'],
    ['8:4'],
    ['4..2'],
    ['A100::8'],
    ['24XB'],
    [{ nme: 'A100' }],
    [{ count: 'x' }],
    [null],
  ])('%j is refused', (value) => {
    expect(parseDstackGpu(value)).toHaveProperty('error');
  });
});
