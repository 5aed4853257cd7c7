import type Database from 'better-sqlite3';
import type { LeaseState } from '../contract';
import { toLeaseRow, type RawLease } from './row-mapping';
import type { DeadManFacts, LeaseRow } from './rows';

export function getLease(db: Database.Database, label: string): LeaseRow | undefined {
  const row = db.prepare('SELECT * FROM leases WHERE label = ?').get(label) as RawLease | undefined;
  return row && toLeaseRow(row);
}

/** Writes only the dead-man column. Returns whether a lease row was changed. */
export function setDeadMan(db: Database.Database, label: string, facts: DeadManFacts): boolean {
  const changed = db
    .prepare('UPDATE leases SET deadman_json = ? WHERE label = ?')
    .run(JSON.stringify(facts), label).changes;
  return changed > 0;
}

export function leasesOfRun(db: Database.Database, runId: string): LeaseRow[] {
  return (
    db
      .prepare('SELECT * FROM leases WHERE run_id = ? ORDER BY requested_at')
      .all(runId) as RawLease[]
  ).map(toLeaseRow);
}

export function listLeases(db: Database.Database, states?: readonly LeaseState[]): LeaseRow[] {
  const rows = (
    states
      ? db
          .prepare(
            `SELECT * FROM leases WHERE state IN (${states.map(() => '?').join(',')}) ORDER BY requested_at`,
          )
          .all(...states)
      : db.prepare('SELECT * FROM leases ORDER BY requested_at').all()
  ) as RawLease[];
  return rows.map(toLeaseRow);
}
