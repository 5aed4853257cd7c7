import type { NodeEffect } from './messages';
import type { NodeRecord } from '../ledger/node-record';

/** What to redo for a node after a restart, from its committed record alone. Every effect
 *  here is idempotent: a provider's create is idempotent per label (a lease that already
 *  carries it is returned, not a second made), StartBootstrap finds
 *  a running agent and does not start a second, DestroyLease of a gone lease succeeds. */
export function resume(rec: NodeRecord): NodeEffect[] {
  switch (rec.stage) {
    case 'new':
    case 'dormant':
    case 'failed':
    case 'destroyed':
    case 'released':
      return [];
    case 'lease_requested':
      return [
        rec.destroyRequested ? { type: 'FindLease' } : { type: 'CreateLease', lookupFirst: true },
      ];
    case 'lease_created':
      return rec.lease ? [{ type: 'LookupEndpoint', lease: rec.lease }] : [];
    case 'endpoint_known':
    case 'bootstrap_running':
    case 'agent_joined':
      return rec.lease && rec.connection
        ? [{ type: 'StartBootstrap', endpoint: rec.connection, lease: rec.lease }]
        : [];
    case 'handed_off':
      return [{ type: 'CompleteHandoff' }];
    case 'destroying':
      return rec.lease
        ? [{ type: 'DestroyLease', handle: rec.lease.destroyHandle, delayMs: 0 }]
        : [];
  }
}
