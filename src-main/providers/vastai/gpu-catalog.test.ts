import { describe, expect, test } from 'vitest';
import { vastGpuNames } from './gpu-catalog';

describe('vastGpuNames: what Vast.ai is asked for', () => {
  // prettier-ignore
  test.each<[string | undefined, string[]]>([
    [undefined, []],
    ['', []],
    ['A100', ['A100 SXM4', 'A100 PCIE', 'A100X']],
    ['a100', ['A100 SXM4', 'A100 PCIE', 'A100X']],
    ['H100', ['H100 SXM', 'H100 PCIE', 'H100 NVL']],
    ['rtx 4090', ['RTX 4090']],
    ['RTX_4090', ['RTX 4090']],
    ['RTX4090', ['RTX 4090']],
    ['4090', ['RTX 4090', 'RTX 4090D']],
    ['A100 SXM4', ['A100 SXM4']],
    ['a100_pcie', ['A100 PCIE']],
    ['H100 SXM', ['H100 SXM']],
    ['H200', ['H200']],
    ['L40', ['L40']],
    ['RTX 3090', ['RTX 3090']],
    ['A10', ['A10']],
    ['V100', ['Tesla V100']],
    ['T4', ['Tesla T4']],
    ['RTX 6000 Ada', ['RTX 6000Ada']],
    ['MI50', ['InstinctMI50']],
    ['A6000', ['RTX A6000']],
    ['  A100_SXM4 ', ['A100 SXM4']],
    ['RTX_4090,,RTX__3090', ['RTX 4090', 'RTX 3090']],
    ['A100, A100 SXM4', ['A100 SXM4', 'A100 PCIE', 'A100X']],
    ['B300', ['B300']],
    ['some new gpu', ['some new gpu']],
  ])('%j → %j', (gpu, names) => expect(vastGpuNames(gpu)).toEqual(names));
});
