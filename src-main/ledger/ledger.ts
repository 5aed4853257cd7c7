import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { JobSpec, LeasePolicy, LeaseState } from '../contract';
import { LIVE_LEASE_STATES } from '../contract';
import { TenderError } from '../base/tender-error';
import type { NodeRecord } from '../nodes/node-record';
import { projectLease } from './lease-projection';
import {
  RUN_SELECT,
  toAttemptRow,
  toLeaseRow,
  toRunRow,
  type RawAttempt,
  type RawLease,
  type RawRun,
} from './row-mapping';
import { LATEST_SCHEMA_VERSION, migrate, readSchemaVersion } from './migrations';
import { ProcessLock } from './process-lock';
import type {
  AttemptRow,
  DeadManFacts,
  HostKeyPin,
  JournalEvent,
  LeaseRow,
  RunRow,
} from './rows';

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
}

/** The SQLite ledger: the truth about what is billed. The only code that touches SQLite.
 *  WAL, and synchronous=FULL on every write: the writes are few (log bodies live in the
 *  datastream) and each lease-affecting one must survive a power cut. */
export class Ledger {
  private constructor(
    private readonly db: Database.Database,
    readonly isReadonly: boolean,
    private readonly lock: ProcessLock | null,
  ) {}

  private readonly leaseListeners = new Set<(label: string) => void>();

  /** Called after a committed change to a lease row (for live views). */
  onLeaseChange(listener: (label: string) => void): () => void {
    this.leaseListeners.add(listener);
    return () => this.leaseListeners.delete(listener);
  }

  private leaseChanged(label: string | null): void {
    if (label === null) return;
    for (const l of this.leaseListeners) l(label);
  }

  getLease(label: string): LeaseRow | undefined {
    const row = this.db.prepare('SELECT * FROM leases WHERE label = ?').get(label) as
      RawLease | undefined;
    return row && toLeaseRow(row);
  }

  /** Records what a lease's dead-man switch was last told (a renewal the agent acknowledged)
   *  or what the node reported about its own teardown. The lease row's other columns are
   *  the node record's projection and are left alone. */
  setDeadMan(label: string, facts: DeadManFacts): void {
    const changed = this.db
      .prepare('UPDATE leases SET deadman_json = ? WHERE label = ?')
      .run(JSON.stringify(facts), label).changes;
    if (changed > 0) this.leaseChanged(label);
  }

  /** Opens the ledger for writing; throws `busy` when another process is the writer. */
  static openWriter(home: string): Ledger {
    mkdirSync(home, { recursive: true });
    const lock = ProcessLock.acquire(home);
    let db: Database.Database | null = null;
    try {
      db = new Database(join(home, 'ledger.sqlite'));
      db.pragma('busy_timeout = 5000');
      // Before any pragma that writes (journal_mode rewrites the header): a newer ledger is
      // left byte-identical.
      refuseNewer(db, home);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      migrate(db);
      const ledger = new Ledger(db, false, lock);
      ledger.ensureInstallId();
      return ledger;
    } catch (err) {
      if (db?.open) db.close();
      lock.release();
      throw err;
    }
  }

  /** Opens read-only alongside a writer (status, logs). Null when no ledger exists yet. */
  static openReader(home: string): Ledger | null {
    const path = join(home, 'ledger.sqlite');
    if (!existsSync(path)) return null;
    const db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    refuseNewer(db, home);
    if (readSchemaVersion(db) < LATEST_SCHEMA_VERSION) {
      db.close();
      throw new TenderError(
        'conflict',
        `the ledger in ${home} needs an upgrade that a read-only open cannot do`,
        'Run any writing command once (for example `tender down --all` or `tender run`).',
      );
    }
    return new Ledger(db, true, null);
  }

  close(): void {
    if (this.db.open) this.db.close();
    this.lock?.release();
  }

  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  installId(): string {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = 'install_id'").get() as
      { value: string } | undefined;
    return row?.value ?? 'unknown';
  }

  private ensureInstallId(): void {
    this.db
      .prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('install_id', ?)")
      .run(randomBytes(4).toString('hex'));
  }

  // ── runs ──────────────────────────────────────────────────────────────────────────────

  createRun(run: NewRun, nodes: NodeRecord[], now: number): void {
    this.tx(() => {
      this.db
        .prepare(
          'INSERT INTO jobs (id, name, spec_json, source, created_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(run.jobId, run.jobName, JSON.stringify(run.jobSpec), run.source, now);
      this.db
        .prepare(
          `INSERT INTO runs (id, job_id, provider, count, pool_json, keep, status, detached,
             driver_pid, created_at, outputs_dir, policy_json)
             VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`,
        )
        .run(
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
        );
      for (const node of nodes) {
        this.db
          .prepare(
            `INSERT INTO nodes (id, run_id, logical_id, provider, label, stage, ready, stage_since,
               record_json, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
          )
          .run(
            node.id,
            node.runId,
            node.logicalId,
            node.desired.provider,
            node.label,
            node.stage,
            now,
            JSON.stringify(node),
            now,
          );
        this.db
          .prepare(
            `INSERT INTO attempts (node_id, run_id, attempt, status, phase, updated_at)
             VALUES (?, ?, 0, 'pending', 'provisioning', ?)`,
          )
          .run(node.id, node.runId, now);
      }
      this.append({
        ts: now,
        runId: run.id,
        nodeId: null,
        kind: 'run.created',
        data: { job: run.jobName, provider: run.provider, count: run.count },
      });
    });
  }

  /** The stored (redacted) job spec of a run. */
  jobSpec(jobId: string): JobSpec {
    const row = this.db.prepare('SELECT spec_json FROM jobs WHERE id = ?').get(jobId) as
      { spec_json: string } | undefined;
    if (!row) throw new Error(`no job ${jobId}`);
    return JSON.parse(row.spec_json) as JobSpec;
  }

  getRun(id: string): RunRow | undefined {
    const row = this.db.prepare(`${RUN_SELECT} WHERE r.id = ?`).get(id) as RawRun | undefined;
    return row && toRunRow(row);
  }

  listRuns(limit = 200): RunRow[] {
    const rows = this.db
      .prepare(`${RUN_SELECT} ORDER BY r.created_at DESC LIMIT ?`)
      .all(limit) as RawRun[];
    return rows.map(toRunRow);
  }

  updateRun(
    id: string,
    patch: Partial<Pick<RunRow, 'status' | 'detached' | 'driverPid' | 'endedAt' | 'failedReason'>>,
    now: number,
  ): void {
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
    this.tx(() => {
      this.db.prepare(`UPDATE runs SET ${cols.join(', ')} WHERE id = ?`).run(...vals, id);
      this.append({ ts: now, runId: id, nodeId: null, kind: 'run.updated', data: patch });
    });
  }

  // ── nodes ─────────────────────────────────────────────────────────────────────────────

  getNode(id: string): NodeRecord | undefined {
    const row = this.db.prepare('SELECT record_json FROM nodes WHERE id = ?').get(id) as
      { record_json: string } | undefined;
    return row && (JSON.parse(row.record_json) as NodeRecord);
  }

  nodesOfRun(runId: string): NodeRecord[] {
    const rows = this.db
      .prepare('SELECT record_json FROM nodes WHERE run_id = ? ORDER BY logical_id')
      .all(runId) as { record_json: string }[];
    return rows.map((r) => JSON.parse(r.record_json) as NodeRecord);
  }

  /** Nodes that may still hold something billed: everything not yet destroyed. */
  unfinishedNodes(): NodeRecord[] {
    const rows = this.db
      .prepare("SELECT record_json FROM nodes WHERE stage != 'destroyed' ORDER BY id")
      .all() as { record_json: string }[];
    return rows
      .map((r) => JSON.parse(r.record_json) as NodeRecord)
      .filter((n) => n.stage !== 'failed' || n.lease !== null);
  }

  /** Commits one FSM step: the node row, the lease projection and a journal row, in one
   *  transaction. Called before the step's effects run. */
  commitNodeStep(
    prev: NodeRecord,
    next: NodeRecord,
    msg: string,
    now: number,
    data: Record<string, unknown> = {},
  ): void {
    this.tx(() => {
      const { changes } = this.db
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
      projectLease(this.db, next, now);
      this.append({
        ts: now,
        runId: next.runId,
        nodeId: next.id,
        kind: 'node.step',
        data: { msg, from: prev.stage, to: next.stage, ...data },
      });
    });
    this.leaseChanged(next.label);
  }

  // ── job attempts ──────────────────────────────────────────────────────────────────────

  getAttempt(nodeId: string): AttemptRow | undefined {
    const row = this.db.prepare('SELECT * FROM attempts WHERE node_id = ?').get(nodeId) as
      RawAttempt | undefined;
    return row && toAttemptRow(row);
  }

  updateAttempt(
    nodeId: string,
    patch: Partial<Pick<AttemptRow, 'status' | 'phase' | 'exitCode' | 'reason'>>,
    event: { kind: string; data: Record<string, unknown> },
    now: number,
  ): void {
    const cur = this.getAttempt(nodeId);
    if (!cur) throw new Error(`no attempt for node ${nodeId}`);
    const next = { ...cur, ...patch };
    this.tx(() => {
      this.db
        .prepare(
          'UPDATE attempts SET status = ?, phase = ?, exit_code = ?, reason = ?, updated_at = ? WHERE node_id = ?',
        )
        .run(next.status, next.phase, next.exitCode, next.reason, now, nodeId);
      this.append({ ts: now, runId: cur.runId, nodeId, kind: event.kind, data: event.data });
    });
  }

  // ── leases ────────────────────────────────────────────────────────────────────────────

  /** Every lease a run has had, failed boot attempts included. */
  leasesOfRun(runId: string): LeaseRow[] {
    return (
      this.db
        .prepare('SELECT * FROM leases WHERE run_id = ? ORDER BY requested_at')
        .all(runId) as RawLease[]
    ).map(toLeaseRow);
  }

  listLeases(states?: readonly LeaseState[]): LeaseRow[] {
    const rows = (
      states
        ? this.db
            .prepare(
              `SELECT * FROM leases WHERE state IN (${states.map(() => '?').join(',')}) ORDER BY requested_at`,
            )
            .all(...states)
        : this.db.prepare('SELECT * FROM leases ORDER BY requested_at').all()
    ) as RawLease[];
    return rows.map(toLeaseRow);
  }

  /** Records a lease the ledger did not know (an orphan) before anything is done to it. */
  recordOrphan(
    o: { label: string; leaseId: string; provider: string; handle: Record<string, string> },
    now: number,
  ): void {
    this.tx(() => {
      this.db
        .prepare(
          `INSERT INTO leases (label, lease_id, provider, state, destroy_handle_json, requested_at, created_at, reason)
           VALUES (?, ?, ?, 'destroying', ?, ?, ?, 'orphan: found by label, unknown to this ledger')
           ON CONFLICT(label) DO UPDATE SET state = 'destroying', lease_id = excluded.lease_id,
             destroy_handle_json = excluded.destroy_handle_json, reason = excluded.reason`,
        )
        .run(o.label, o.leaseId, o.provider, JSON.stringify(o.handle), now, now);
      this.append({
        ts: now,
        runId: null,
        nodeId: null,
        kind: 'orphan.destroying',
        data: { label: o.label, leaseId: o.leaseId },
      });
    });
    this.leaseChanged(o.label);
  }

  /** Outcome of destroying an orphan: destroyed once confirmed, else the error is kept. */
  settleOrphan(
    label: string,
    outcome: { confirmed: boolean; error: string | null },
    now: number,
  ): void {
    this.tx(() => {
      this.db
        .prepare(
          `UPDATE leases SET state = ?, destroyed_at = ?, last_error = ?, destroy_attempts = destroy_attempts + 1
           WHERE label = ?`,
        )
        .run(
          outcome.confirmed ? 'destroyed' : 'destroying',
          outcome.confirmed ? now : null,
          outcome.error,
          label,
        );
      this.append({
        ts: now,
        runId: null,
        nodeId: null,
        kind: outcome.confirmed ? 'orphan.destroyed' : 'orphan.destroy_failed',
        data: { label, error: outcome.error },
      });
    });
    this.leaseChanged(label);
  }

  liveLeases(): LeaseRow[] {
    return this.listLeases(LIVE_LEASE_STATES);
  }

  // ── journal ───────────────────────────────────────────────────────────────────────────

  append(e: Omit<JournalEvent, 'seq'>): void {
    this.db
      .prepare('INSERT INTO events (ts, run_id, node_id, kind, data_json) VALUES (?, ?, ?, ?, ?)')
      .run(e.ts, e.runId, e.nodeId, e.kind, JSON.stringify(e.data));
  }

  /** The stages a node entered, oldest first (from its node.step journal events). */
  stageHistory(nodeId: string): { stage: string; at: number }[] {
    const rows = this.db
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

  journal(runId?: string): JournalEvent[] {
    const rows = (
      runId
        ? this.db.prepare('SELECT * FROM events WHERE run_id = ? ORDER BY seq').all(runId)
        : this.db.prepare('SELECT * FROM events ORDER BY seq').all()
    ) as {
      seq: number;
      ts: number;
      run_id: string | null;
      node_id: string | null;
      kind: string;
      data_json: string;
    }[];
    return rows.map((r) => ({
      seq: r.seq,
      ts: r.ts,
      runId: r.run_id,
      nodeId: r.node_id,
      kind: r.kind,
      data: JSON.parse(r.data_json) as Record<string, unknown>,
    }));
  }

  // ── host keys ─────────────────────────────────────────────────────────────────────────

  getHostKey(scope: string): HostKeyPin | undefined {
    const row = this.db.prepare('SELECT * FROM host_keys WHERE scope = ?').get(scope) as
      | {
          scope: string;
          endpoint: string;
          key_type: string;
          fingerprint: string;
          pinned_at: number;
        }
      | undefined;
    return (
      row && {
        scope: row.scope,
        endpoint: row.endpoint,
        keyType: row.key_type,
        fingerprint: row.fingerprint,
        pinnedAt: row.pinned_at,
      }
    );
  }

  /** Pins a key on first contact; never replaces an existing pin (a changed key is refused
   *  by the caller, not silently re-pinned). Returns the pin in force. */
  pinHostKey(pin: HostKeyPin): HostKeyPin {
    this.tx(() => {
      const inserted = this.db
        .prepare(
          `INSERT OR IGNORE INTO host_keys (scope, endpoint, key_type, fingerprint, pinned_at)
           VALUES (?, ?, ?, ?, ?)`,
        )
        .run(pin.scope, pin.endpoint, pin.keyType, pin.fingerprint, pin.pinnedAt);
      if (inserted.changes === 1) {
        this.append({
          ts: pin.pinnedAt,
          runId: null,
          nodeId: null,
          kind: 'host_key.pinned',
          data: { ...pin },
        });
      }
    });
    return this.getHostKey(pin.scope)!;
  }

  /** Forgets a pin (the user confirmed the host was reinstalled). Journaled. */
  forgetHostKey(scope: string, now: number): void {
    this.tx(() => {
      this.db.prepare('DELETE FROM host_keys WHERE scope = ?').run(scope);
      this.append({
        ts: now,
        runId: null,
        nodeId: null,
        kind: 'host_key.forgotten',
        data: { scope },
      });
    });
  }

  // ── log cursors ───────────────────────────────────────────────────────────────────────

  setCursor(runId: string, nodeId: string, channel: string, lastSeq: number, now: number): void {
    this.db
      .prepare(
        `INSERT INTO log_cursors (run_id, node_id, channel, last_seq, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(run_id, node_id, channel) DO UPDATE SET last_seq = excluded.last_seq, updated_at = excluded.updated_at`,
      )
      .run(runId, nodeId, channel, lastSeq, now);
  }

  getCursor(runId: string, nodeId: string, channel: string): number {
    const row = this.db
      .prepare('SELECT last_seq FROM log_cursors WHERE run_id = ? AND node_id = ? AND channel = ?')
      .get(runId, nodeId, channel) as { last_seq: number } | undefined;
    return row?.last_seq ?? 0;
  }
}

function refuseNewer(db: Database.Database, home: string): void {
  const version = readSchemaVersion(db);
  if (version > LATEST_SCHEMA_VERSION) {
    db.close();
    throw new TenderError(
      'conflict',
      `the ledger in ${home} has schema v${version}, newer than this Tender knows (v${LATEST_SCHEMA_VERSION})`,
      'Upgrade Tender, or set TENDER_HOME to another folder. The ledger was not changed.',
    );
  }
}
