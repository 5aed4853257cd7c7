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

/** Whether a GPU a person asked for (`RTX_4090`, `a100`) is this provider's `name`: the
 *  same canonical name, or one that the asked-for name begins (`a100` matches `a100sxm4`
 *  and `a100pcie`, as a person asking for an A100 means any). */
export function isGpuAskedFor(asked: string, name: string): boolean {
  const a = canonicalGpu(asked);
  const n = canonicalGpu(name);
  return a !== '' && (n === a || (n.startsWith(a) && !/\d/.test(n.charAt(a.length))));
}
