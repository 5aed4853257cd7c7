import { describe, expect, it } from 'vitest';
import { canonicalGpu, isGpuAskedFor } from './gpu-names';

describe('canonicalGpu', () => {
  it.each([
    ['RTX 4090', 'rtx4090'],
    ['NVIDIA GeForce RTX 4090', 'rtx4090'],
    ['rtx_4090', 'rtx4090'],
    ['A100 (40 GB SXM4)', 'a100sxm4'],
    ['A100 (80GB PCIe)', 'a100pcie'],
    ['H100 SXM', 'h100sxm'],
    ['NVIDIA H100 80GB HBM3', 'h100hbm3'],
    ['Tesla V100', 'v100'],
    ['RTX A6000', 'rtxa6000'],
  ])('%s → %s', (name, want) => expect(canonicalGpu(name)).toBe(want));
});

describe('isGpuAskedFor', () => {
  it.each([
    ['RTX_4090', 'NVIDIA GeForce RTX 4090', true],
    ['rtx 4090', 'RTX 4090', true],
    ['A100', 'A100 (40 GB SXM4)', true],
    ['A100', 'A100 PCIE', true],
    ['a100_sxm4', 'A100 (40 GB SXM4)', true],
    ['a100_sxm4', 'A100 PCIE', false],
    ['RTX 4090', 'RTX 4080', false],
    ['H100', 'H1000', false],
    ['RTX 40', 'RTX 4090', false],
    ['', 'RTX 4090', false],
  ])('%s asks for %s: %s', (asked, name, want) => expect(isGpuAskedFor(asked, name)).toBe(want));
});
