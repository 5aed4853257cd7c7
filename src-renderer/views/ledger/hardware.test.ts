import { describe, expect, it } from 'vitest';
import { capabilityEntries, hardwareSummary } from './hardware';

const GIB = 1024 ** 3;

describe('hardware summary', () => {
  it('names the GPUs, then CPU, memory and free disk', () => {
    expect(
      hardwareSummary({
        'gpu.count': 2,
        'gpu.model': 'NVIDIA GeForce RTX 4090',
        'gpu.vram.max': 24 * GIB,
        'cpu.cores': 32,
        'mem.total': 128 * GIB,
        'disk.avail': 1.5 * GIB,
      }),
    ).toEqual({
      gpu: '2× NVIDIA GeForce RTX 4090 · 24 GiB',
      host: '32 CPUs · 128 GiB RAM · 1.5 GiB free',
    });
  });

  it('says nothing of GPUs on a machine without one, and null before the agent joined', () => {
    expect(hardwareSummary({ 'cpu.cores': 1, os: 'linux' })).toEqual({ gpu: null, host: '1 CPU' });
    expect(hardwareSummary(null)).toBeNull();
  });

  it('lists GPU facts first, sizes in GiB', () => {
    const entries = capabilityEntries({ os: 'linux', 'gpu.vram': 80 * GIB, 'gpu.count': 1 });
    expect(entries).toEqual([
      ['gpu.count', '1'],
      ['gpu.vram', '80 GiB'],
      ['os', 'linux'],
    ]);
  });
});
