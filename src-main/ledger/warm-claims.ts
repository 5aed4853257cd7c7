import type Database from 'better-sqlite3';
import { TenderError } from '../base/tender-error';
import { getAttempt } from './attempts';
import { appendEvent } from './journal';
import { getLease } from './leases';
import type { NodeRecord } from './node-record';
import { RUN_SELECT, toRunRow, type RawRun } from './row-mapping';
import type { AttemptRow, LeaseRow, RunRow } from './rows';

/** A dormant node of a provider, with what decides whether it is warm (services/runs/
 *  warm-match.ts): its last run, that run's attempt on it, its lease. */
export interface DormantNode {
  node: NodeRecord;
  run: RunRow;
  attempt: AttemptRow | undefined;
  lease: LeaseRow | undefined;
}

export function dormantNodes(db: Database.Database, provider?: string): DormantNode[] {
  const rows = (
    provider === undefined
      ? db.prepare("SELECT record_json FROM nodes WHERE stage = 'dormant' ORDER BY id").all()
      : db
          .prepare(
            "SELECT record_json FROM nodes WHERE stage = 'dormant' AND provider = ? ORDER BY id",
          )
          .all(provider)
  ) as { record_json: string }[];
  return rows.flatMap((r) => {
    const node = JSON.parse(r.record_json) as NodeRecord;
    const raw = db.prepare(`${RUN_SELECT} WHERE r.id = ?`).get(node.runId) as RawRun | undefined;
    const run = raw && toRunRow(raw);
    if (!run) return [];
    return [{ node, run, attempt: getAttempt(db, node.id), lease: getLease(db, node.label) }];
  });
}

/** A claimed node's lease was taken (or left) between planning and the claim. */
export class ClaimLostError extends TenderError {
  constructor(
    readonly nodeId: string,
    why: string,
  ) {
    super('conflict', `warm node ${nodeId} is no longer free: ${why}`);
  }
}

/** Hands a warm node's lease to `to` (a new run's node record, already holding the lease
 *  facts), inside the caller's transaction: the old node is `released`, its row gives up
 *  the label, the lease row names the new holder, and each run's share is recorded. Throws
 *  ClaimLostError (rolling the transaction back) when the node is not free any more. */
export function claimWarmNode(db: Database.Database, to: NodeRecord, now: number): void {
  const claim = to.claimedFrom;
  if (!claim) throw new Error(`node ${to.id} claims nothing`);
  const row = db
    .prepare('SELECT label, stage, record_json FROM nodes WHERE id = ?')
    .get(claim.nodeId) as { label: string; stage: string; record_json: string } | undefined;
  if (!row) throw new ClaimLostError(claim.nodeId, 'not in the ledger');
  if (row.stage !== 'dormant') throw new ClaimLostError(claim.nodeId, `it is ${row.stage}`);
  const from = JSON.parse(row.record_json) as NodeRecord;
  if (from.label !== to.label || row.label !== to.label)
    throw new ClaimLostError(claim.nodeId, 'its lease changed');
  const lease = getLease(db, from.label);
  if (lease?.state !== 'created')
    throw new ClaimLostError(claim.nodeId, `its lease is ${lease?.state ?? 'unknown'}`);
  const released: NodeRecord = {
    ...from,
    stage: 'released',
    stageSince: now,
    ready: false,
    releasedTo: to.id,
  };
  db.prepare(
    'UPDATE nodes SET stage = ?, ready = 0, stage_since = ?, label = ?, record_json = ?, updated_at = ? WHERE id = ?',
  ).run('released', now, `${from.label}~${to.runId}`, JSON.stringify(released), now, from.id);
  // The run that served before: its share ends now (it may itself have claimed the lease).
  db.prepare(
    `INSERT INTO lease_runs (label, run_id, node_id, served_from, served_to) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(label, run_id) DO UPDATE SET served_to = excluded.served_to`,
  ).run(from.label, from.runId, from.id, lease.createdAt ?? lease.requestedAt, now);
  db.prepare(
    'INSERT INTO lease_runs (label, run_id, node_id, served_from, served_to) VALUES (?, ?, ?, ?, NULL)',
  ).run(to.label, to.runId, to.id, now);
  db.prepare('UPDATE leases SET run_id = ?, node_id = ? WHERE label = ?').run(
    to.runId,
    to.id,
    to.label,
  );
  appendEvent(db, {
    ts: now,
    runId: from.runId,
    nodeId: from.id,
    kind: 'node.step',
    data: { msg: 'Released', from: 'dormant', to: 'released', releasedTo: to.id },
  });
  appendEvent(db, {
    ts: now,
    runId: to.runId,
    nodeId: to.id,
    kind: 'lease.claimed',
    data: { label: to.label, leaseId: lease.leaseId, from: from.id },
  });
}

/** The runs a lease has served, oldest first. */
export function servedRuns(db: Database.Database, label: string): string[] {
  return (
    db.prepare('SELECT run_id FROM lease_runs WHERE label = ? ORDER BY served_from').all(label) as {
      run_id: string;
    }[]
  ).map((r) => r.run_id);
}
