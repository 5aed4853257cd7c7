// The last log seq recorded per node channel (log_cursors).
import type Database from 'better-sqlite3';

export function setCursor(
  db: Database.Database,
  key: { runId: string; nodeId: string; channel: string },
  lastSeq: number,
  now: number,
): void {
  db.prepare(
    `INSERT INTO log_cursors (run_id, node_id, channel, last_seq, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(run_id, node_id, channel) DO UPDATE SET last_seq = excluded.last_seq, updated_at = excluded.updated_at`,
  ).run(key.runId, key.nodeId, key.channel, lastSeq, now);
}

/** 0 when nothing was stored for the channel. */
export function getCursor(
  db: Database.Database,
  key: { runId: string; nodeId: string; channel: string },
): number {
  const row = db
    .prepare('SELECT last_seq FROM log_cursors WHERE run_id = ? AND node_id = ? AND channel = ?')
    .get(key.runId, key.nodeId, key.channel) as { last_seq: number } | undefined;
  return row?.last_seq ?? 0;
}
