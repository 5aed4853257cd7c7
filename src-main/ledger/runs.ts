import type Database from 'better-sqlite3';
import type { JobSpec, LeasePolicy } from '../contract';
import { insertCells, type NewCell } from './cells';
import type { NodeRecord } from './node-record';
import { insertAttempt } from './attempts';
import { appendEvent } from './journal';
import { insertNode } from './nodes';
import { claimWarmNode } from './warm-claims';
import { RUN_SELECT, toRunRow, type RawRun } from './row-mapping';
import type { RunRow } from './rows';

export interface NewRun {
  id: string;
  jobId: string;
  jobName: string;
  jobSpec: unknown; // redacted
  source: string | null;
  provider: string;
  count: number;
  pool: Record<string, unknown>;
  keep: boolean;
  outputsDir: string;
  policy: LeasePolicy;
  /** Who started it (contract/run-origin.ts); left out or null: unknown. */
  origin?: string | null;
  /** A sweep's cells, all queued. */
  cells?: NewCell[];
}

export type RunPatch = Partial<
  Pick<RunRow, 'status' | 'detached' | 'driverPid' | 'endedAt' | 'failedReason'>
>;

/** The job, the run, its nodes and their first attempts, the warm nodes it claims, and a
 *  journal row: one transaction. */
export function createRun(
  db: Database.Database,
  run: NewRun,
  nodes: NodeRecord[],
  now: number,
  hooks: { insideClaim?: () => void } = {},
): void {
  db.transaction(() => {
    db.prepare(
      'INSERT INTO jobs (id, name, spec_json, source, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(run.jobId, run.jobName, JSON.stringify(run.jobSpec), run.source, now);
    db.prepare(
      `INSERT INTO runs (id, job_id, provider, count, pool_json, keep, status, detached,
         driver_pid, created_at, outputs_dir, policy_json, origin)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?)`,
    ).run(
      run.id,
      run.jobId,
      run.provider,
      run.count,
      JSON.stringify(run.pool),
      run.keep ? 1 : 0,
      process.pid,
      now,
      run.outputsDir,
      JSON.stringify(run.policy),
      run.origin ?? null,
    );
    for (const node of nodes) {
      // A node that takes over a warm node's lease: the hand-over is part of this same
      // transaction, so a crash leaves the warm node claimed or free, never both.
      if (node.claimedFrom) {
        claimWarmNode(db, node, now);
        hooks.insideClaim?.();
      }
      insertNode(db, node, now);
      insertAttempt(db, node, now);
    }
    if (run.cells) insertCells(db, run.id, run.cells, now);
    appendEvent(db, {
      ts: now,
      runId: run.id,
      nodeId: null,
      kind: 'run.created',
      data: {
        job: run.jobName,
        provider: run.provider,
        count: run.count,
        ...(run.origin ? { origin: run.origin } : {}),
      },
    });
  })();
}

export function readJobSpec(db: Database.Database, jobId: string): JobSpec {
  const row = db.prepare('SELECT spec_json FROM jobs WHERE id = ?').get(jobId) as
    { spec_json: string } | undefined;
  if (!row) throw new Error(`no job ${jobId}`);
  // Defaults of fields added since (a run stored by an older Tender lacks them).
  const stored = JSON.parse(row.spec_json) as Partial<JobSpec>;
  return { setup_fingerprint: [], setup_cache: true, ...stored } as JobSpec;
}

export function getRun(db: Database.Database, id: string): RunRow | undefined {
  const row = db.prepare(`${RUN_SELECT} WHERE r.id = ?`).get(id) as RawRun | undefined;
  return row && toRunRow(row);
}

export function listRuns(db: Database.Database, limit: number): RunRow[] {
  const rows = db
    .prepare(`${RUN_SELECT} ORDER BY r.created_at DESC LIMIT ?`)
    .all(limit) as RawRun[];
  return rows.map(toRunRow);
}

/** Updates the given columns and journals the patch, in one transaction; an empty patch
 *  writes nothing. */
export function updateRun(db: Database.Database, id: string, patch: RunPatch, now: number): void {
  const cols: string[] = [];
  const vals: unknown[] = [];
  const set = (col: string, v: unknown) => {
    cols.push(`${col} = ?`);
    vals.push(v);
  };
  if (patch.status !== undefined) set('status', patch.status);
  if (patch.detached !== undefined) set('detached', patch.detached ? 1 : 0);
  if (patch.driverPid !== undefined) set('driver_pid', patch.driverPid);
  if (patch.endedAt !== undefined) set('ended_at', patch.endedAt);
  if (patch.failedReason !== undefined) set('failed_reason', patch.failedReason);
  if (cols.length === 0) return;
  db.transaction(() => {
    db.prepare(`UPDATE runs SET ${cols.join(', ')} WHERE id = ?`).run(...vals, id);
    appendEvent(db, { ts: now, runId: id, nodeId: null, kind: 'run.updated', data: patch });
  })();
}
