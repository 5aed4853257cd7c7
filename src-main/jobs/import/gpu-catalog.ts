import { canonicalGpu, isGpuAskedFor } from '../../providers/gpu-names';

/**
 * GPU names Tender's marketplaces (Vast.ai, RunPod, Lambda) sell, as they spell them. The
 * converter only needs to tell a GPU that can be rented from one that cannot (a TPU, a K80);
 * `tender run` then checks the live offers.
 */
export const MARKETPLACE_GPUS: readonly string[] = [
  'B200',
  'H200',
  'H100',
  'H100 NVL',
  'GH200',
  'A100',
  'A800',
  'A40',
  'A30',
  'A16',
  'A10',
  'A10G',
  'L40S',
  'L40',
  'L4',
  'T4',
  'V100',
  'P100',
  'RTX 6000 Ada',
  'RTX 5000 Ada',
  'RTX 4000 Ada',
  'RTX A6000',
  'RTX A5000',
  'RTX A4500',
  'RTX A4000',
  'RTX 5090',
  'RTX 4090',
  'RTX 4080',
  'RTX 4070 Ti',
  'RTX 3090',
  'RTX 3090 Ti',
  'RTX 3080',
  'RTX 3080 Ti',
  'RTX 3070',
  'RTX 2080 Ti',
  'Quadro RTX 6000',
  'MI300X',
  'MI250',
];

/** SkyPilot / dstack names that differ from the marketplaces' beyond spelling. */
const ALIASES: Record<string, string> = {
  a6000: 'RTX A6000',
  a5000: 'RTX A5000',
  a4000: 'RTX A4000',
  a4500: 'RTX A4500',
  rtx6000: 'Quadro RTX 6000',
  rtx6000ada: 'RTX 6000 Ada',
  l40s: 'L40S',
  h100mega: 'H100',
};

export interface TenderGpu {
  gpu: string;
  /** From a name that carries its memory (`A100-80GB`): Tender filters on VRAM apart. */
  minVramGb?: number;
}

/**
 * The pool's `gpu` (and VRAM floor) for an accelerator name, or undefined when no Tender
 * marketplace sells it. Names compare as providers/gpu-names.ts compares them.
 */
export function tenderGpu(name: string): TenderGpu | undefined {
  const vram = /(\d+)\s*GB\b/i.exec(name);
  const canonical = canonicalGpu(name);
  if (canonical === '') return undefined;
  const alias = ALIASES[canonical];
  const known = alias ?? MARKETPLACE_GPUS.find((g) => canonicalGpu(g) === canonical);
  const prefixed =
    known ?? MARKETPLACE_GPUS.find((g) => isGpuAskedFor(name, g)) ?? baseOf(canonical);
  if (!prefixed) return undefined;
  return vram ? { gpu: prefixed, minVramGb: Number(vram[1]) } : { gpu: prefixed };
}

/** `a100sxm` → `A100`: a name more specific than any Tender sells is rented as its base
 *  (the longest catalog name it starts with, not followed by a digit). */
function baseOf(canonical: string): string | undefined {
  let best: string | undefined;
  for (const g of MARKETPLACE_GPUS) {
    const c = canonicalGpu(g);
    const next = canonical.charAt(c.length);
    if (
      canonical.startsWith(c) &&
      !/\d/.test(next) &&
      c.length > (best ? canonicalGpu(best).length : 0)
    )
      best = g;
  }
  return best;
}

/** For messages: a few of the names that can be rented. */
export const GPU_EXAMPLES = 'H100, A100, L40S, RTX 4090, A10G, T4';
