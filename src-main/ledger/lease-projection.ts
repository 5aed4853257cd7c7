import type { LeaseState } from '../contract';
import type Database from 'better-sqlite3';
import type { NodeRecord } from './node-record';

/** The lease state a node record implies. The leases table is kept as this projection, in
 *  the same transaction as the node row, so the two can never disagree. */
export function leaseStateOf(rec: NodeRecord): LeaseState | null {
  // A released node's lease is another run's now: its record projects nothing.
  if (rec.stage === 'new' || rec.stage === 'released') return null;
  if (!rec.lease) return rec.stage === 'lease_requested' ? 'requested' : 'not_created';
  if (rec.leaseLost) return 'lost';
  if (rec.stage === 'destroyed') return 'destroyed';
  if (rec.stage === 'destroying') return 'destroying';
  return 'created';
}

/** Upserts the lease row a node record implies (inside the caller's transaction). */
export function projectLease(db: Database.Database, rec: NodeRecord, now: number): void {
  const state = leaseStateOf(rec);
  if (!state) return;
  if (state === 'not_created') {
    // Only an intent that was written can turn out never to have become a lease.
    db.prepare("UPDATE leases SET state = 'not_created', reason = ? WHERE label = ?").run(
      rec.destroyReason ?? rec.failedReason,
      rec.label,
    );
    return;
  }
  const lease = rec.lease;
  db.prepare(
    `INSERT INTO leases (label, lease_id, provider, run_id, node_id, state, destroy_handle_json,
         price_per_hour, requested_at, created_at, destroyed_at, destroy_attempts, last_error, reason)
       VALUES (@label, @leaseId, @provider, @runId, @nodeId, @state, @handle, @price, @now,
         @createdAt, @destroyedAt, @attempts, @lastError, @reason)
       ON CONFLICT(label) DO UPDATE SET
         lease_id = COALESCE(excluded.lease_id, leases.lease_id),
         provider = excluded.provider,
         state = excluded.state,
         destroy_handle_json = COALESCE(excluded.destroy_handle_json, leases.destroy_handle_json),
         price_per_hour = COALESCE(excluded.price_per_hour, leases.price_per_hour),
         created_at = COALESCE(leases.created_at, excluded.created_at),
         destroyed_at = excluded.destroyed_at,
         destroy_attempts = excluded.destroy_attempts,
         last_error = excluded.last_error,
         reason = excluded.reason`,
  ).run({
    label: rec.label,
    leaseId: lease?.leaseId ?? null,
    // A pool naming several providers: the one that made the lease, once there is one.
    provider: lease?.provider ?? rec.desired.provider,
    runId: rec.runId,
    nodeId: rec.id,
    state,
    handle: lease ? JSON.stringify(lease.destroyHandle) : null,
    price: lease?.pricePerHour ?? null,
    now,
    createdAt: lease ? now : null,
    destroyedAt: state === 'destroyed' ? rec.destroyedAt : null,
    attempts: rec.destroyAttempts,
    lastError: rec.lastError,
    reason: rec.destroyReason ?? rec.failedReason,
  });
}
