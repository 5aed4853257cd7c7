import { describe, expect, it } from 'vitest';
import { canonicalGpu, gpuWords, isGpuAskedFor, selectAskedGpus } from './gpu-names';

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
    // A family name matches each marketplace's variants, case and spacing ignored.
    ['A100', 'A100 SXM4', true],
    ['A100', 'gpu_1x_a100_sxm4', true],
    ['H100', 'H100 SXM', true],
    ['H100', 'H100 (80 GB PCIe)', true],
    ['H100', 'NVIDIA H100 80GB HBM3', true],
    ['4090', 'RTX 4090', true],
    ['4090', 'NVIDIA GeForce RTX 4090', true],
    ['rtx 4090', 'NVIDIA GeForce RTX 4090', true],
    ['RTX4090', 'RTX 4090', true],
    ['rtx  4090', 'RTX_4090', true],
    ['A100-80GB', 'A100 PCIE', true],
    ['MI50', 'InstinctMI50', true],
    ['RTX 6000 Ada', 'RTX 6000Ada', true],
    // An exact variant narrows; a number is never cut.
    ['A100 SXM4', 'A100 PCIE', false],
    ['H100 SXM', 'H100 (80 GB PCIe)', false],
    ['A10', 'A100 PCIE', false],
    ['H100', 'GH200', false],
    ['L4', 'L40S', false],
    ['T4', 'RTX 4000Ada', false],
    ['P4', 'Tesla P40', false],
    // A list: any of them.
    ['RTX 3090, A100', 'A100 PCIE', true],
    ['RTX 3090, A100', 'RTX 4090', false],
  ])('%s asks for %s: %s', (asked, name, want) => expect(isGpuAskedFor(asked, name)).toBe(want));
});

describe('gpuWords', () => {
  it.each([
    ['RTX 6000Ada', ['rtx', '6000', 'ada']],
    ['A100 (40 GB SXM4)', ['a', '100', 'sxm', '4']],
    ['NVIDIA GeForce RTX 4090', ['rtx', '4090']],
    ['InstinctMI50', ['mi', '50']],
    ['gpu_1x_a100_sxm4', ['gpu', '1', 'x', 'a', '100', 'sxm', '4']],
  ])('%s → %j', (name, words) => expect(gpuWords(name)).toEqual(words));
});

describe('selectAskedGpus: an exact variant narrows, a family takes every variant', () => {
  const RUNPOD = ['RTX 3090', 'RTX 3090 Ti', 'RTX 4090', 'A100 PCIe', 'A100 SXM', 'L40', 'L40S'];
  it.each<[string, string[]]>([
    ['RTX 3090', ['RTX 3090']],
    ['rtx_3090_ti', ['RTX 3090 Ti']],
    ['3090', ['RTX 3090', 'RTX 3090 Ti']],
    ['A100', ['A100 PCIe', 'A100 SXM']],
    ['L40', ['L40']],
    ['l40s', ['L40S']],
    ['A100 SXM, 4090', ['A100 SXM', 'RTX 4090']],
    ['H100', []],
  ])('%s → %j', (asked, want) => expect([...selectAskedGpus(asked, RUNPOD)]).toEqual(want));
});
