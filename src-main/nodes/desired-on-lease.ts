import { hostKey } from '../../src-agent/wire/host-key';
import type { NodeRecord } from '../ledger/node-record';
import { chainOf } from '../providers/failover/chain';

/** A node of a pool naming several providers is declared on the one that leased it: the
 *  host key's `provider` field follows the lease (what its agent computes, too). A node of
 *  one provider is declared as it was. */
export function desiredOnLease(
  desired: NodeRecord['desired'],
  lease: { provider: string },
): NodeRecord['desired'] {
  if (!chainOf(desired.provider) || !desired.host || desired.host.provider === lease.provider)
    return desired;
  const host = { ...desired.host, provider: lease.provider };
  return { ...desired, host, hostKey: hostKey(host) };
}
