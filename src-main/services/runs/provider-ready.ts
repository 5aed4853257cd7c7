import { TenderError } from '../../base/tender-error';
import { chainOf } from '../../providers/failover/chain';
import type { Provider } from '../../providers/provider';
import { keyVariable } from '../settings/secret-store';

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
