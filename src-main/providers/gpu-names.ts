// One way to compare GPU names across providers, which spell them differently: Vast.ai
// `RTX 4090` / `H100 SXM`, RunPod `NVIDIA GeForce RTX 4090` (id) / `RTX 4090` (display),
// Lambda `A100 (40 GB SXM4)` / `gpu_1x_a100_sxm4`, and what a person types (`rtx_4090`).

/** Words that name the maker or a product line, not the GPU. */
const NOISE = new Set(['nvidia', 'geforce', 'tesla', 'amd', 'radeon', 'instinct', 'quadro']);

/** `NVIDIA GeForce RTX 4090` → `rtx4090`; `A100 (40 GB SXM4)` → `a100sxm4`; `H100_SXM` →
 *  `h100sxm`. Memory sizes in brackets (`40 GB`, `80GB`) are dropped: VRAM is its own column. */
export function canonicalGpu(name: string): string {
  return name
    .toLowerCase()
    .replace(/\(?\b\d+\s*gb\b\)?/g, ' ')
    .replace(/[()_\-/,]/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '' && !NOISE.has(w))
    .join('');
}

/** Maker and product-line words wherever they stand, even run into a name
 *  (`InstinctMI50`, `GeForce`). */
const NOISE_IN = /nvidia|geforce|tesla|amd|radeon|instinct|quadro/gi;

/** A GPU name as its words, each letter run and digit run a word of its own: `RTX 6000Ada`
 *  → rtx 6000 ada, `A100 (40 GB SXM4)` → a 100 sxm 4, `gpu_1x_a100_sxm4` → gpu 1 x a 100 sxm
 *  4, `InstinctMI50` → mi 50. Spacing and case do not matter; memory sizes are dropped. */
export function gpuWords(name: string): string[] {
  return name
    .replace(NOISE_IN, ' ')
    .toLowerCase()
    .replace(/\(?\b\d+\s*gb\b\)?/g, ' ')
    .replace(/[^a-z0-9]+/g, ' ')
    .split(' ')
    .flatMap((w) => w.match(/[a-z]+|\d+/g) ?? []);
}

/**
 * Whether a GPU a person asked for (`A100`, `rtx 4090`, `4090`, `RTX_4090`, `A100 SXM4`) is
 * this provider's `name`: its words, in order, within the name's. A family name matches every
 * marketplace's variants (`A100` → `A100 SXM4`, `A100 PCIE`, `A100 (40 GB SXM4)`; `4090` →
 * `RTX 4090`), an exact variant still narrows (`A100 SXM4` is not `A100 PCIE`), and a number
 * is never cut (`A10` is not `A100`, `RTX 40` not `RTX 4090`). `asked` may list several,
 * comma-separated: any of them.
 */
export function isGpuAskedFor(asked: string, name: string): boolean {
  const words = gpuWords(name);
  return asked.split(',').some((one) => {
    const a = gpuWords(one);
    if (a.length === 0 || a.length > words.length) return false;
    for (let i = 0; i + a.length <= words.length; i++)
      if (a.every((w, j) => words[i + j] === w)) return true;
    return false;
  });
}

/**
 * The names among `names` (a marketplace's catalog, or the GPUs its offers carry) that
 * `asked` selects: for each name asked, those that are exactly it when there are any (an
 * exact variant narrows: `RTX 3090` is not `RTX 3090 Ti`, `L40` not `L40S`), else every
 * variant of the family (`A100`, `H100`, `4090`).
 */
export function selectAskedGpus(asked: string, names: Iterable<string>): Set<string> {
  const all = [...new Set(names)];
  const picked = new Set<string>();
  for (const one of asked.split(',')) {
    const a = gpuWords(one).join(' ');
    if (a === '') continue;
    const exact = all.filter((n) => gpuWords(n).join(' ') === a);
    for (const n of exact.length > 0 ? exact : all.filter((x) => isGpuAskedFor(one, x)))
      picked.add(n);
  }
  return picked;
}
