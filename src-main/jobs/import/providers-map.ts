/** SkyPilot clouds and dstack backends that are Tender providers (the marketplaces). */
const MARKETPLACE_OF: Record<string, string> = {
  vast: 'vastai',
  vastai: 'vastai',
  runpod: 'runpod',
  lambda: 'lambda',
  lambdalabs: 'lambda',
};

export function tenderProvider(cloud: string): string | undefined {
  return MARKETPLACE_OF[cloud.trim().toLowerCase()];
}

/** The pool's provider from the marketplaces named, in order: none → `cheapest` when the
 *  task wants a GPU (as SkyPilot and dstack pick the cheapest offer), else Tender's default. */
export function poolProvider(
  named: readonly string[],
  wantsGpu: boolean,
): string | string[] | undefined {
  const unique = [...new Set(named)];
  if (unique.length === 0) return wantsGpu ? 'cheapest' : undefined;
  return unique.length === 1 ? unique[0] : unique;
}
