import type Database from 'better-sqlite3';
import type { NodeRecord } from './node-record';
import { appendEvent } from './journal';
import { toAttemptRow, type RawAttempt } from './row-mapping';
import type { AttemptRow } from './rows';

export type AttemptPatch = Partial<
  Pick<AttemptRow, 'status' | 'phase' | 'exitCode' | 'reason' | 'attempt'>
>;

/** Inserts a node's first job attempt, pending and provisioning (inside the caller's
 *  transaction). */
export function insertAttempt(db: Database.Database, node: NodeRecord, now: number): void {
  db.prepare(
    `INSERT INTO attempts (node_id, run_id, attempt, status, phase, updated_at)
     VALUES (?, ?, 0, 'pending', 'provisioning', ?)`,
  ).run(node.id, node.runId, now);
}

export function getAttempt(db: Database.Database, nodeId: string): AttemptRow | undefined {
  const row = db.prepare('SELECT * FROM attempts WHERE node_id = ?').get(nodeId) as
    RawAttempt | undefined;
  return row && toAttemptRow(row);
}

/** The attempt row and a journal row, in one transaction. */
export function updateAttempt(
  db: Database.Database,
  nodeId: string,
  patch: AttemptPatch,
  event: { kind: string; data: Record<string, unknown> },
  now: number,
): void {
  const cur = getAttempt(db, nodeId);
  if (!cur) throw new Error(`no attempt for node ${nodeId}`);
  const next = { ...cur, ...patch };
  db.transaction(() => {
    db.prepare(
      'UPDATE attempts SET status = ?, phase = ?, exit_code = ?, reason = ?, attempt = ?, updated_at = ? WHERE node_id = ?',
    ).run(next.status, next.phase, next.exitCode, next.reason, next.attempt, now, nodeId);
    appendEvent(db, { ts: now, runId: cur.runId, nodeId, kind: event.kind, data: event.data });
  })();
}
