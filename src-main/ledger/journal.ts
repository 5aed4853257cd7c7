import type Database from 'better-sqlite3';
import type { JournalEvent } from './rows';

interface RawEvent {
  seq: number;
  ts: number;
  run_id: string | null;
  node_id: string | null;
  kind: string;
  data_json: string;
}

/** Appends one journal row, inside the caller's transaction when there is one. */
export function appendEvent(db: Database.Database, e: Omit<JournalEvent, 'seq'>): void {
  db.prepare(
    'INSERT INTO events (ts, run_id, node_id, kind, data_json) VALUES (?, ?, ?, ?, ?)',
  ).run(e.ts, e.runId, e.nodeId, e.kind, JSON.stringify(e.data));
}

export function stageHistory(
  db: Database.Database,
  nodeId: string,
): { stage: string; at: number }[] {
  const rows = db
    .prepare(
      `SELECT ts, data_json FROM events WHERE run_id = ? AND node_id = ? AND kind = 'node.step' ORDER BY seq`,
    )
    .all(nodeId.slice(0, nodeId.indexOf('/')), nodeId) as { ts: number; data_json: string }[];
  const out: { stage: string; at: number }[] = [];
  for (const r of rows) {
    const { from, to } = JSON.parse(r.data_json) as { from?: string; to?: string };
    if (typeof to !== 'string' || from === to) continue;
    if (out.length === 0 && typeof from === 'string') out.push({ stage: from, at: r.ts });
    out.push({ stage: to, at: r.ts });
  }
  return out;
}

/** A node's latest journal row of `kind`, or null. */
export function lastNodeEvent(
  db: Database.Database,
  nodeId: string,
  kind: string,
): JournalEvent | null {
  const r = db
    .prepare(
      'SELECT * FROM events WHERE run_id = ? AND node_id = ? AND kind = ? ORDER BY seq DESC LIMIT 1',
    )
    .get(nodeId.slice(0, nodeId.indexOf('/')), nodeId, kind) as RawEvent | undefined;
  if (!r) return null;
  return {
    seq: r.seq,
    ts: r.ts,
    runId: r.run_id,
    nodeId: r.node_id,
    kind: r.kind,
    data: JSON.parse(r.data_json) as Record<string, unknown>,
  };
}

export function readJournal(db: Database.Database, runId?: string): JournalEvent[] {
  const rows = (
    runId
      ? db.prepare('SELECT * FROM events WHERE run_id = ? ORDER BY seq').all(runId)
      : db.prepare('SELECT * FROM events ORDER BY seq').all()
  ) as RawEvent[];
  return rows.map((r) => ({
    seq: r.seq,
    ts: r.ts,
    runId: r.run_id,
    nodeId: r.node_id,
    kind: r.kind,
    data: JSON.parse(r.data_json) as Record<string, unknown>,
  }));
}
