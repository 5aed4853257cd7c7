import type Database from 'better-sqlite3';
import type { LeaseInterruption, LeaseState } from '../contract';
import { appendEvent } from './journal';
import { toLeaseRow, type RawLease } from './row-mapping';
import type { DeadManFacts, LeaseRow } from './rows';
import { currentRate, rateFor } from '../contract/billing';
import { getNode } from './nodes';

/** The storage $/h the provider quoted for the lease's disk (its node's lease facts), or
 *  null where it did not. */
function storageRateOf(db: Database.Database, row: LeaseRow): number | null {
  const raw = row.nodeId
    ? getNode(db, row.nodeId)?.lease?.metadata.storage_price_per_hour
    : undefined;
  const n = Number(raw);
  return raw !== undefined && Number.isFinite(n) && n >= 0 ? n : null;
}

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

/** What the reconciler last saw a lease doing, from its provider's listing. */
export interface LeaseInterruptionFacts {
  interruption: LeaseInterruption | null;
  bid: number | null;
  minBid: number | null;
}

/** Writes the interruption columns, and journals `lease.interrupted {label, state, bid,
 *  minBid}` when the lease stops running (or stops for another reason) and `lease.resumed
 *  {label, was}` when it runs again. Returns whether anything changed. */
export function setInterruption(
  db: Database.Database,
  label: string,
  facts: LeaseInterruptionFacts,
  now: number,
): boolean {
  const row = getLease(db, label);
  if (!row) return false;
  if (
    row.interruption === facts.interruption &&
    row.bid === facts.bid &&
    row.minBid === facts.minBid
  )
    return false;
  // What it bills from now on (billing.ts): storage only while stopped with its disk, a
  // raised bid from the change on.
  const after = rateFor(row, { ...facts, storagePerHour: storageRateOf(db, row) });
  const rates =
    after !== null && Math.abs(after - (currentRate(row) ?? 0)) > 1e-6
      ? [...row.rates, { from: now, perHour: after }]
      : row.rates;
  db.prepare(
    'UPDATE leases SET interruption = ?, bid = ?, min_bid = ?, rates_json = ? WHERE label = ?',
  ).run(
    facts.interruption,
    facts.bid,
    facts.minBid,
    rates.length > 0 ? JSON.stringify(rates) : null,
    label,
  );
  if (row.interruption !== facts.interruption) {
    const base = { ts: now, runId: row.runId, nodeId: row.nodeId };
    appendEvent(
      db,
      facts.interruption === null
        ? { ...base, kind: 'lease.resumed', data: { label, was: row.interruption } }
        : {
            ...base,
            kind: 'lease.interrupted',
            data: { label, state: facts.interruption, bid: facts.bid, minBid: facts.minBid },
          },
    );
  }
  return true;
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
