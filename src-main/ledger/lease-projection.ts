import type { LeaseState } from '../contract';
import type { NodeRecord } from '../nodes/node-record';

/** The lease state a node record implies. The leases table is kept as this projection, in
 *  the same transaction as the node row, so the two can never disagree. */
export function leaseStateOf(rec: NodeRecord): LeaseState | null {
  if (rec.stage === 'new') return null;
  if (!rec.lease) return rec.stage === 'lease_requested' ? 'requested' : 'not_created';
  if (rec.stage === 'destroyed') return 'destroyed';
  if (rec.stage === 'destroying') return 'destroying';
  return 'created';
}
