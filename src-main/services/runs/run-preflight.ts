// What every run start checks before anything is written (services/runs/run-start.ts).
import { TenderError } from '../../base/tender-error';
import type { PoolSpec } from '../../contract';
import { chainOf } from '../../providers/failover/chain';
import type { Provider } from '../../providers/provider';
import type { ProviderRegistry } from '../../providers/registry';
import { keyVariable } from '../settings/secret-store';

/** A provider judges a pool with one market search; its answer is waited for this long. */
const POOL_CHECK_DEADLINE_MS = 60_000;

export interface RunPreflightDeps {
  providers: Pick<ProviderRegistry, 'get'>;
  requireWriter: () => void;
}

/** This process is the ledger's writer, the pool's provider has its key, and the provider
 *  accepts the pool as the market is now (a bid above the on-demand price, or below every
 *  minimum, is bad input). Throws the refusal; writes nothing. */
export async function preflightRun(d: RunPreflightDeps, pool: PoolSpec): Promise<void> {
  d.requireWriter();
  const provider = d.providers.get(pool.provider);
  requireConfigured(provider);
  await provider.checkPool?.(pool, AbortSignal.timeout(POOL_CHECK_DEADLINE_MS));
}

/** A run on a provider that has no key would fail at its first create: refuse it before
 *  anything is written, naming the key to set. A list of providers needs one of them. */
export function requireConfigured(provider: Provider): void {
  if (!provider.isConfigured || provider.isConfigured()) return;
  const kinds = chainOf(provider.kind) ?? [provider.kind];
  const keys = kinds.map(keyVariable).filter((v) => v !== undefined);
  throw new TenderError(
    'bad_input',
    kinds.length > 1
      ? `none of ${kinds.join(', ')} is configured: none has an API key`
      : `${provider.kind} is not configured: it has no API key`,
    keys.length > 0
      ? `set ${keys.join(' or ')} (or add the key in Settings)`
      : `check the ${provider.kind} configuration`,
  );
}
