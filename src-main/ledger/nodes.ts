import type Database from 'better-sqlite3';
import type { NodeRecord } from './node-record';
import { appendEvent } from './journal';
import { projectLease } from './lease-projection';

/** Inserts a new node row (inside the caller's transaction). */
export function insertNode(db: Database.Database, node: NodeRecord, now: number): void {
  db.prepare(
    `INSERT INTO nodes (id, run_id, logical_id, provider, label, stage, ready, stage_since,
       record_json, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    node.id,
    node.runId,
    node.logicalId,
    node.desired.provider,
    node.label,
    node.stage,
    node.ready ? 1 : 0,
    now,
    JSON.stringify(node),
    now,
  );
}

export function getNode(db: Database.Database, id: string): NodeRecord | undefined {
  const row = db.prepare('SELECT record_json FROM nodes WHERE id = ?').get(id) as
    { record_json: string } | undefined;
  return row && (JSON.parse(row.record_json) as NodeRecord);
}

export function nodesOfRun(db: Database.Database, runId: string): NodeRecord[] {
  const rows = db
    .prepare('SELECT record_json FROM nodes WHERE run_id = ? ORDER BY logical_id')
    .all(runId) as { record_json: string }[];
  return rows.map((r) => JSON.parse(r.record_json) as NodeRecord);
}

export function unfinishedNodes(db: Database.Database): NodeRecord[] {
  const rows = db
    .prepare(
      "SELECT record_json FROM nodes WHERE stage NOT IN ('destroyed', 'released') ORDER BY id",
    )
    .all() as { record_json: string }[];
  return rows
    .map((r) => JSON.parse(r.record_json) as NodeRecord)
    .filter((n) => n.stage !== 'failed' || n.lease !== null);
}

/** The node row, the lease projection and a journal row, in one transaction. */
export function commitNodeStep(
  db: Database.Database,
  prev: NodeRecord,
  next: NodeRecord,
  msg: string,
  now: number,
  data: Record<string, unknown>,
): void {
  db.transaction(() => {
    const { changes } = db
      .prepare(
        'UPDATE nodes SET stage = ?, ready = ?, stage_since = ?, label = ?, record_json = ?, updated_at = ? WHERE id = ?',
      )
      .run(
        next.stage,
        next.ready ? 1 : 0,
        next.stageSince,
        next.label,
        JSON.stringify(next),
        now,
        next.id,
      );
    if (changes !== 1) throw new Error(`no node ${next.id} in the ledger`);
    projectLease(db, next, now);
    appendEvent(db, {
      ts: now,
      runId: next.runId,
      nodeId: next.id,
      kind: 'node.step',
      data: { msg, from: prev.stage, to: next.stage, ...data },
    });
  })();
}
