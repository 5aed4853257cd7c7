// A pool may name several marketplaces in order (`provider = ["runpod", "vastai"]`, on the
// command line `--provider runpod,vastai`), or `cheapest` (every configured marketplace,
// the one with the cheapest matching offer first). Such a pool is one provider kind to the
// rest of Tender — the names joined by commas — which the registry resolves to a
// FailoverProvider (failover-provider.ts); each lease still names the provider that made it.

/** The marketplaces a chain may name, in the order `cheapest` breaks ties. */
export const MARKETPLACES: readonly string[] = ['vastai', 'runpod', 'lambda'];

/** Every configured marketplace, cheapest matching offer first. */
export const CHEAPEST = 'cheapest';

/** The kind a list of providers is known by: `["runpod", "vastai"]` → `runpod,vastai`; one
 *  provider is just its name. */
export function chainKind(providers: readonly string[]): string {
  return providers.join(',');
}

/** The providers a chain kind names, in order; null for a single provider's kind. */
export function chainOf(kind: string): string[] | null {
  if (kind === CHEAPEST) return [...MARKETPLACES];
  if (!kind.includes(',')) return null;
  return kind.split(',').map((k) => k.trim());
}

/** Whether `provider` is one a lease made under `kind` may name. */
export function isInChain(kind: string, provider: string): boolean {
  return kind === provider || (chainOf(kind)?.includes(provider) ?? false);
}

/** What is wrong with a provider name or chain, for a person; null when it is fine. */
export function providerNameProblem(
  kind: string,
  known: readonly string[],
): { text: string; hint: string } | null {
  const chain = chainOf(kind);
  if (!chain) {
    if (known.includes(kind)) return null;
    return {
      text: `unknown provider "${kind}"`,
      hint: `known providers: ${known.join(', ')}; or several marketplaces in order (${MARKETPLACES.join(',')}) or "${CHEAPEST}"`,
    };
  }
  if (kind === CHEAPEST) return null;
  const seen = new Set<string>();
  for (const p of chain) {
    if (p === '' || !known.includes(p))
      return {
        text: `unknown provider "${p}" in "${kind}"`,
        hint: `known providers: ${known.join(', ')}`,
      };
    if (!MARKETPLACES.includes(p))
      return {
        text: `${p} cannot be one of several providers: only marketplaces (${MARKETPLACES.join(', ')}) can stand in for each other`,
        hint: `use provider = "${p}" alone, or a list of marketplaces`,
      };
    if (seen.has(p))
      return { text: `${p} is named twice in "${kind}"`, hint: 'name each provider once' };
    seen.add(p);
  }
  return null;
}
