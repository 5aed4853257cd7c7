// Leases found by label that this ledger never asked for: recorded before anything is done
// to them, then settled by the outcome of destroying them.
import type Database from 'better-sqlite3';
import { appendEvent } from './journal';

export interface OrphanFacts {
  label: string;
  leaseId: string;
  provider: string;
  handle: Record<string, string>;
}

export interface OrphanOutcome {
  confirmed: boolean;
  error: string | null;
}

/** The lease row as `destroying` and a journal row, in one transaction. */
export function recordOrphan(db: Database.Database, o: OrphanFacts, now: number): void {
  db.transaction(() => {
    db.prepare(
      `INSERT INTO leases (label, lease_id, provider, state, destroy_handle_json, requested_at, created_at, reason)
       VALUES (?, ?, ?, 'destroying', ?, ?, ?, 'orphan: found by label, unknown to this ledger')
       ON CONFLICT(label) DO UPDATE SET state = 'destroying', lease_id = excluded.lease_id,
         destroy_handle_json = excluded.destroy_handle_json, reason = excluded.reason`,
    ).run(o.label, o.leaseId, o.provider, JSON.stringify(o.handle), now, now);
    appendEvent(db, {
      ts: now,
      runId: null,
      nodeId: null,
      kind: 'orphan.destroying',
      data: { label: o.label, leaseId: o.leaseId },
    });
  })();
}

/** The lease row and a journal row, in one transaction. */
export function settleOrphan(
  db: Database.Database,
  label: string,
  outcome: OrphanOutcome,
  now: number,
): void {
  db.transaction(() => {
    db.prepare(
      `UPDATE leases SET state = ?, destroyed_at = ?, last_error = ?, destroy_attempts = destroy_attempts + 1
       WHERE label = ?`,
    ).run(
      outcome.confirmed ? 'destroyed' : 'destroying',
      outcome.confirmed ? now : null,
      outcome.error,
      label,
    );
    appendEvent(db, {
      ts: now,
      runId: null,
      nodeId: null,
      kind: outcome.confirmed ? 'orphan.destroyed' : 'orphan.destroy_failed',
      data: { label, error: outcome.error },
    });
  })();
}
