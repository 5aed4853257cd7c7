import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gpuCapabilities, parseCudaVersion, parseGpuQuery } from './nvidia-smi';

const fixture = (name: string) =>
  readFileSync(join(__dirname, '../../../test/fixtures/nvidia-smi', name), 'utf8');
const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

describe('nvidia-smi parsing', () => {
  it('reads a single A100 80GB', () => {
    const gpus = parseGpuQuery(fixture('a100-80gb.query.csv'));
    const caps = gpuCapabilities(gpus, parseCudaVersion(fixture('a100-80gb.banner.txt')));
    expect(caps).toEqual({
      'gpu.count': 1,
      'gpu.vendor': 'nvidia',
      'gpu.model': 'NVIDIA A100-SXM4-80GB',
      'gpu.vram': 80 * GIB,
      'gpu.vram.max': 80 * GIB,
      'gpu.0.model': 'NVIDIA A100-SXM4-80GB',
      'gpu.0.vram': 80 * GIB,
      'gpu.driver': '535.129.03',
      'gpu.cuda': '12.2',
    });
  });

  it('reads 8× H100 and sums their memory', () => {
    const caps = gpuCapabilities(
      parseGpuQuery(fixture('h100x8.query.csv')),
      parseCudaVersion(fixture('h100x8.banner.txt')),
    );
    expect(caps['gpu.count']).toBe(8);
    expect(caps['gpu.model']).toBe('NVIDIA H100 80GB HBM3');
    expect(caps['gpu.vram']).toBe(8 * 81559 * MIB);
    expect(caps['gpu.vram.max']).toBe(81559 * MIB);
    expect(caps['gpu.7.model']).toBe('NVIDIA H100 80GB HBM3');
    expect(caps['gpu.8.model']).toBeUndefined();
    expect(caps['gpu.driver']).toBe('550.54.15');
    expect(caps['gpu.cuda']).toBe('12.4');
  });

  it('lists each model of a mixed box once', () => {
    const caps = gpuCapabilities(
      parseGpuQuery(fixture('mixed-4090-3090.query.csv')),
      parseCudaVersion(fixture('mixed-4090-3090.banner.txt')),
    );
    expect(caps['gpu.model']).toBe('NVIDIA GeForce RTX 4090,NVIDIA GeForce RTX 3090');
    expect(caps['gpu.0.vram']).toBe(24564 * MIB);
    expect(caps['gpu.1.model']).toBe('NVIDIA GeForce RTX 3090');
    expect(caps['gpu.vram.max']).toBe(24576 * MIB);
    expect(caps['gpu.cuda']).toBe('12.3');
  });

  it('yields no GPU keys when the driver is broken', () => {
    const text = fixture('driver-failure.txt');
    expect(parseGpuQuery(text)).toEqual([]);
    expect(parseCudaVersion(text)).toBeUndefined();
    expect(gpuCapabilities([], undefined)).toEqual({});
  });

  it('omits memory it cannot read but keeps the GPU', () => {
    const caps = gpuCapabilities(parseGpuQuery(fixture('vram-na.query.csv')), undefined);
    expect(caps).toMatchObject({
      'gpu.count': 1,
      'gpu.0.model': 'NVIDIA A10G',
      'gpu.driver': '535.104.05',
    });
    expect(caps['gpu.vram']).toBeUndefined();
    expect(caps['gpu.cuda']).toBeUndefined();
  });

  it('ignores garbage and blank lines', () => {
    expect(
      parseGpuQuery('\n\nFailed to initialize NVML: Driver/library version mismatch\n'),
    ).toEqual([]);
  });
});
