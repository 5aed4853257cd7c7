// A sweep's cells (contract/sweep.ts) and the queue over them. Every change is one
// transaction with its journal row. A node takes the lowest queued index; what a cell's
// end writes is kept only while the cell is still that node's (a cancel or a re-queue that
// came first wins).
import type Database from 'better-sqlite3';
import type { CellStatus, SweepCell } from '../contract';
import { appendEvent } from './journal';

export interface CellRow {
  runId: string;
  id: string;
  index: number;
  values: Record<string, string>;
  status: CellStatus;
  nodeId: string | null;
  tries: number;
  exitCode: number | null;
  reason: string | null;
  startedAt: number | null;
  endedAt: number | null;
  seqFrom: number | null;
  seqTo: number | null;
  cacheKey: string | null;
  cacheHit: { runId: string; jobId: string } | null;
}

interface RawCell {
  run_id: string;
  cell_id: string;
  idx: number;
  values_json: string;
  status: CellStatus;
  node_id: string | null;
  tries: number;
  exit_code: number | null;
  reason: string | null;
  started_at: number | null;
  ended_at: number | null;
  seq_from: number | null;
  seq_to: number | null;
  cache_key: string | null;
  cache_hit_json: string | null;
}

function toCellRow(r: RawCell): CellRow {
  return {
    runId: r.run_id,
    id: r.cell_id,
    index: r.idx,
    values: JSON.parse(r.values_json) as Record<string, string>,
    status: r.status,
    nodeId: r.node_id,
    tries: r.tries,
    exitCode: r.exit_code,
    reason: r.reason,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    seqFrom: r.seq_from,
    seqTo: r.seq_to,
    cacheKey: r.cache_key,
    cacheHit: r.cache_hit_json ? (JSON.parse(r.cache_hit_json) as CellRow['cacheHit']) : null,
  };
}

/** A cell as a run is created with it: memoized ones carry their key, and a hit is
 *  written completed, with the cell whose outputs it took. */
export type NewCell = SweepCell & {
  cacheKey?: string;
  cacheHit?: { runId: string; jobId: string };
};

/** Inside the caller's transaction (createRun). */
export function insertCells(
  db: Database.Database,
  runId: string,
  cells: NewCell[],
  now: number,
): void {
  const insert = db.prepare(
    `INSERT INTO cells (run_id, cell_id, idx, values_json, status, exit_code, ended_at,
       cache_key, cache_hit_json, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const c of cells)
    insert.run(
      runId,
      c.id,
      c.index,
      JSON.stringify(c.values),
      c.cacheHit ? 'completed' : 'queued',
      c.cacheHit ? 0 : null,
      c.cacheHit ? now : null,
      c.cacheKey ?? null,
      c.cacheHit ? JSON.stringify(c.cacheHit) : null,
      now,
    );
}

export function listCells(db: Database.Database, runId: string): CellRow[] {
  return (
    db.prepare('SELECT * FROM cells WHERE run_id = ? ORDER BY idx').all(runId) as RawCell[]
  ).map(toCellRow);
}

export function getCell(db: Database.Database, runId: string, cellId: string): CellRow | undefined {
  const r = db
    .prepare('SELECT * FROM cells WHERE run_id = ? AND cell_id = ?')
    .get(runId, cellId) as RawCell | undefined;
  return r && toCellRow(r);
}

/** The next queued cell, now running on `nodeId` (null: the queue is empty). */
export function takeCell(
  db: Database.Database,
  runId: string,
  nodeId: string,
  seqFrom: number,
  now: number,
): CellRow | null {
  return db.transaction(() => {
    const next = db
      .prepare(
        "SELECT cell_id FROM cells WHERE run_id = ? AND status = 'queued' ORDER BY idx LIMIT 1",
      )
      .get(runId) as { cell_id: string } | undefined;
    if (!next) return null;
    db.prepare(
      `UPDATE cells SET status = 'running', node_id = ?, tries = tries + 1, exit_code = NULL,
         reason = NULL, started_at = ?, ended_at = NULL, seq_from = ?, seq_to = NULL,
         updated_at = ? WHERE run_id = ? AND cell_id = ?`,
    ).run(nodeId, now, seqFrom, now, runId, next.cell_id);
    appendEvent(db, {
      ts: now,
      runId,
      nodeId,
      kind: 'cell.started',
      data: { cell: next.cell_id },
    });
    return getCell(db, runId, next.cell_id)!;
  })();
}

export interface CellEnd {
  status: Exclude<CellStatus, 'running'>;
  exitCode?: number | null;
  reason?: string | null;
  seqTo?: number | null;
  cacheKey?: string | null;
  cacheHit?: { runId: string; jobId: string } | null;
}

/** Ends (or re-queues, `status: 'queued'`) a running cell; only while it is still running
 *  on `nodeId` (null: whichever node). False when something else ended it first. */
export function endCell(
  db: Database.Database,
  runId: string,
  cellId: string,
  nodeId: string | null,
  end: CellEnd,
  now: number,
): boolean {
  return db.transaction(() => {
    const cur = getCell(db, runId, cellId);
    if (!cur) throw new Error(`no cell ${cellId} in run ${runId}`);
    const isOurs = cur.status === 'running' && (nodeId === null || cur.nodeId === nodeId);
    if (!isOurs) return false;
    const ended = end.status === 'queued' ? null : now;
    db.prepare(
      `UPDATE cells SET status = ?, exit_code = ?, reason = ?, ended_at = ?, seq_to = ?,
         cache_key = COALESCE(?, cache_key), cache_hit_json = ?, updated_at = ?
       WHERE run_id = ? AND cell_id = ?`,
    ).run(
      end.status,
      end.exitCode ?? null,
      end.reason ?? null,
      ended,
      end.seqTo ?? null,
      end.cacheKey ?? null,
      end.cacheHit ? JSON.stringify(end.cacheHit) : null,
      now,
      runId,
      cellId,
    );
    appendEvent(db, {
      ts: now,
      runId,
      nodeId: cur.nodeId,
      kind: end.status === 'queued' ? 'cell.requeued' : 'cell.ended',
      data: {
        cell: cellId,
        status: end.status,
        exitCode: end.exitCode ?? null,
        reason: end.reason ?? null,
      },
    });
    return true;
  })();
}

/** Ends every queued cell of a run (a cancelled sweep, or no node left to run them). */
export function endQueuedCells(
  db: Database.Database,
  runId: string,
  status: 'cancelled' | 'failed',
  reason: string,
  now: number,
): number {
  return db.transaction(() => {
    const n = db
      .prepare(
        `UPDATE cells SET status = ?, reason = ?, ended_at = ?, updated_at = ?
         WHERE run_id = ? AND status = 'queued'`,
      )
      .run(status, reason, now, now, runId).changes;
    if (n > 0)
      appendEvent(db, {
        ts: now,
        runId,
        nodeId: null,
        kind: 'cell.queue_ended',
        data: { status, reason, cells: n },
      });
    return n;
  })();
}

/** Cancels a queued cell (never started); a running one is the node's to stop. */
export function cancelQueuedCell(
  db: Database.Database,
  runId: string,
  cellId: string,
  now: number,
): boolean {
  return db.transaction(() => {
    const n = db
      .prepare(
        `UPDATE cells SET status = 'cancelled', reason = 'cancelled', ended_at = ?, updated_at = ?
         WHERE run_id = ? AND cell_id = ? AND status = 'queued'`,
      )
      .run(now, now, runId, cellId).changes;
    if (n > 0)
      appendEvent(db, {
        ts: now,
        runId,
        nodeId: null,
        kind: 'cell.cancelled',
        data: { cell: cellId },
      });
    return n > 0;
  })();
}

/** The completed cell (of any run) with this memoization key, newest first. */
export function cellByCacheKey(db: Database.Database, key: string): CellRow | undefined {
  const r = db
    .prepare(
      "SELECT * FROM cells WHERE cache_key = ? AND status = 'completed' ORDER BY ended_at DESC LIMIT 1",
    )
    .get(key) as RawCell | undefined;
  return r && toCellRow(r);
}

export interface CellSummary {
  total: number;
  queued: number;
  running: number;
  completed: number;
  failed: number;
  cancelled: number;
}

/** A run's cells counted by status; null for a run that is no sweep. */
export function cellSummary(db: Database.Database, runId: string): CellSummary | null {
  const rows = db
    .prepare('SELECT status, COUNT(*) AS n FROM cells WHERE run_id = ? GROUP BY status')
    .all(runId) as { status: CellStatus; n: number }[];
  if (rows.length === 0) return null;
  const s: CellSummary = { total: 0, queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
  for (const r of rows) {
    s[r.status] = r.n;
    s.total += r.n;
  }
  return s;
}

/** How long completed cells of the last sweep of a job (by name) ran, that run's id
 *  first; cache hits left out. */
export function lastCellDurations(
  db: Database.Database,
  jobName: string,
): { runId: string; ms: number[] } | null {
  const last = db
    .prepare(
      `SELECT c.run_id AS run_id FROM cells c JOIN runs r ON r.id = c.run_id JOIN jobs j ON j.id = r.job_id
       WHERE j.name = ? AND c.status = 'completed' AND c.cache_hit_json IS NULL AND c.started_at IS NOT NULL
       ORDER BY c.ended_at DESC LIMIT 1`,
    )
    .get(jobName) as { run_id: string } | undefined;
  if (!last) return null;
  const rows = db
    .prepare(
      `SELECT started_at, ended_at FROM cells WHERE run_id = ? AND status = 'completed'
       AND cache_hit_json IS NULL AND started_at IS NOT NULL`,
    )
    .all(last.run_id) as { started_at: number; ended_at: number }[];
  return { runId: last.run_id, ms: rows.map((r) => r.ended_at - r.started_at) };
}
