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

/** The leases a run has held, each with the share it served (a warm lease serves several
 *  runs: `servedFrom`/`servedTo` bound what this run is charged; null: its whole life). */
export function leasesOfRun(db: Database.Database, runId: string): LeaseRow[] {
  return (
    db
      .prepare(
        `SELECT l.*, s.served_from, s.served_to FROM leases l
           JOIN lease_runs s ON s.label = l.label WHERE s.run_id = ?
         UNION ALL
         SELECT l.*, NULL AS served_from, NULL AS served_to FROM leases l
           WHERE l.run_id = ? AND NOT EXISTS (SELECT 1 FROM lease_runs s WHERE s.label = l.label)
         ORDER BY requested_at`,
      )
      .all(runId, runId) as RawLease[]
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
