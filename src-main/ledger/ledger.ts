import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { JobSpec, LeaseState } from '../contract';
import { LIVE_LEASE_STATES } from '../contract';
import { TenderError } from '../base/tender-error';
import { ensureDataFolder } from '../base/data-folder';
import { ensurePrivateFile } from '../base/private-files';
import type { NodeRecord } from './node-record';
import * as attempts from './attempts';
import * as cells from './cells';
import * as hostKeys from './host-keys';
import * as journal from './journal';
import * as warmClaims from './warm-claims';
import * as leases from './leases';
import * as logCursors from './log-cursors';
import { LATEST_SCHEMA_VERSION, migrate, readSchemaVersion } from './migrations';
import * as nodeRows from './nodes';
import * as orphans from './orphans';
import { ProcessLock } from './process-lock';
import type { AttemptRow, DeadManFacts, HostKeyPin, JournalEvent, LeaseRow, RunRow } from './rows';
import * as runs from './runs';

export type { NewRun } from './runs';

/** The SQLite ledger: the truth about what is billed. The only code that touches SQLite.
 *  WAL, and synchronous=FULL on every write: the writes are few (log bodies live in the
 *  datastream) and each lease-affecting one must survive a power cut. The queries live in
 *  one module per table (runs, nodes, attempts, leases, orphans, journal, host keys, log
 *  cursors); this class owns the connection, the lock and the lease-change listeners. */
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

  /** Opens the ledger for writing; throws `busy` when another process is the writer. */
  static openWriter(home: string): Ledger {
    ensureDataFolder(home);
    const lock = ProcessLock.acquire(home);
    let db: Database.Database | null = null;
    try {
      const file = join(home, 'ledger.sqlite');
      ensurePrivateFile(file); // before SQLite creates it 0644 (its -wal and -shm follow it)
      db = new Database(file);
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
    ensureDataFolder(home); // a planted ledger could point a reader at others' files
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

  /** Creates a run; its nodes that carry `claimedFrom` take over those warm nodes' leases in
   *  the same transaction (ClaimLostError when one is no longer free: nothing is written). */
  createRun(
    run: runs.NewRun,
    nodes: NodeRecord[],
    now: number,
    hooks: { insideClaim?: () => void } = {},
  ): void {
    runs.createRun(this.db, run, nodes, now, hooks);
    for (const n of nodes) if (n.claimedFrom) this.leaseChanged(n.label);
  }

  /** Dormant nodes of a provider with their run, attempt and lease (warm-node candidates). */
  dormantNodes(provider?: string): warmClaims.DormantNode[] {
    return warmClaims.dormantNodes(this.db, provider);
  }

  /** The runs a lease has served, oldest first (empty: only the run that rented it). */
  servedRuns(label: string): string[] {
    return warmClaims.servedRuns(this.db, label);
  }

  /** The stored (redacted) job spec of a run. */
  jobSpec(jobId: string): JobSpec {
    return runs.readJobSpec(this.db, jobId);
  }

  getRun(id: string): RunRow | undefined {
    return runs.getRun(this.db, id);
  }

  listRuns(limit = 200): RunRow[] {
    return runs.listRuns(this.db, limit);
  }

  updateRun(
    id: string,
    patch: Partial<Pick<RunRow, 'status' | 'detached' | 'driverPid' | 'endedAt' | 'failedReason'>>,
    now: number,
  ): void {
    runs.updateRun(this.db, id, patch, now);
  }

  // ── nodes ─────────────────────────────────────────────────────────────────────────────

  getNode(id: string): NodeRecord | undefined {
    return nodeRows.getNode(this.db, id);
  }

  nodesOfRun(runId: string): NodeRecord[] {
    return nodeRows.nodesOfRun(this.db, runId);
  }

  /** Nodes that may still hold something billed: everything not yet destroyed. */
  unfinishedNodes(): NodeRecord[] {
    return nodeRows.unfinishedNodes(this.db);
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
    nodeRows.commitNodeStep(this.db, prev, next, msg, now, data);
    this.leaseChanged(next.label);
  }

  // ── sweep cells ───────────────────────────────────────────────────────────────────────

  listCells(runId: string): cells.CellRow[] {
    return cells.listCells(this.db, runId);
  }

  getCell(runId: string, cellId: string): cells.CellRow | undefined {
    return cells.getCell(this.db, runId, cellId);
  }

  takeCell(runId: string, nodeId: string, seqFrom: number, now: number): cells.CellRow | null {
    return cells.takeCell(this.db, runId, nodeId, seqFrom, now);
  }

  endCell(
    runId: string,
    cellId: string,
    nodeId: string | null,
    end: cells.CellEnd,
    now: number,
  ): boolean {
    return cells.endCell(this.db, runId, cellId, nodeId, end, now);
  }

  endQueuedCells(
    runId: string,
    status: 'cancelled' | 'failed',
    reason: string,
    now: number,
  ): number {
    return cells.endQueuedCells(this.db, runId, status, reason, now);
  }

  cancelQueuedCell(runId: string, cellId: string, now: number): boolean {
    return cells.cancelQueuedCell(this.db, runId, cellId, now);
  }

  cellSummary(runId: string): cells.CellSummary | null {
    return cells.cellSummary(this.db, runId);
  }

  lastCellDurations(jobName: string): { runId: string; ms: number[] } | null {
    return cells.lastCellDurations(this.db, jobName);
  }

  cellByCacheKey(key: string): cells.CellRow | undefined {
    return cells.cellByCacheKey(this.db, key);
  }

  // ── job attempts ──────────────────────────────────────────────────────────────────────

  getAttempt(nodeId: string): AttemptRow | undefined {
    return attempts.getAttempt(this.db, nodeId);
  }

  updateAttempt(
    nodeId: string,
    patch: Partial<Pick<AttemptRow, 'status' | 'phase' | 'exitCode' | 'reason' | 'attempt'>>,
    event: { kind: string; data: Record<string, unknown> },
    now: number,
  ): void {
    attempts.updateAttempt(this.db, nodeId, patch, event, now);
  }

  // ── leases ────────────────────────────────────────────────────────────────────────────

  getLease(label: string): LeaseRow | undefined {
    return leases.getLease(this.db, label);
  }

  /** Records what a lease's dead-man switch was last told (a renewal the agent acknowledged)
   *  or what the node reported about its own teardown. The lease row's other columns are
   *  the node record's projection and are left alone. */
  setDeadMan(label: string, facts: DeadManFacts): void {
    if (leases.setDeadMan(this.db, label, facts)) this.leaseChanged(label);
  }

  /** Records what the provider last listed a live lease doing (outbid, stopped, exited, or
   *  running again: null) and its bid, journaled as `lease.interrupted` / `lease.resumed`
   *  in the same transaction. The columns the node record projects are left alone. */
  setInterruption(label: string, facts: leases.LeaseInterruptionFacts, now: number): void {
    if (this.tx(() => leases.setInterruption(this.db, label, facts, now))) this.leaseChanged(label);
  }

  /** Every lease a run has had, failed boot attempts included. */
  leasesOfRun(runId: string): LeaseRow[] {
    return leases.leasesOfRun(this.db, runId);
  }

  listLeases(states?: readonly LeaseState[]): LeaseRow[] {
    return leases.listLeases(this.db, states);
  }

  liveLeases(): LeaseRow[] {
    return this.listLeases(LIVE_LEASE_STATES);
  }

  /** Records a lease the ledger did not know (an orphan) before anything is done to it. */
  recordOrphan(
    o: { label: string; leaseId: string; provider: string; handle: Record<string, string> },
    now: number,
  ): void {
    orphans.recordOrphan(this.db, o, now);
    this.leaseChanged(o.label);
  }

  /** Outcome of destroying an orphan: destroyed once confirmed, else the error is kept. */
  settleOrphan(
    label: string,
    outcome: { confirmed: boolean; error: string | null },
    now: number,
  ): void {
    orphans.settleOrphan(this.db, label, outcome, now);
    this.leaseChanged(label);
  }

  // ── journal ───────────────────────────────────────────────────────────────────────────

  append(e: Omit<JournalEvent, 'seq'>): void {
    journal.appendEvent(this.db, e);
  }

  /** The stages a node entered, oldest first (from its node.step journal events). */
  stageHistory(nodeId: string): { stage: string; at: number }[] {
    return journal.stageHistory(this.db, nodeId);
  }

  /** A node's latest journal row of `kind` (`gpu_idle.fired`), or null. */
  lastNodeEvent(nodeId: string, kind: string): JournalEvent | null {
    return journal.lastNodeEvent(this.db, nodeId, kind);
  }

  journal(runId?: string): JournalEvent[] {
    return journal.readJournal(this.db, runId);
  }

  // ── host keys ─────────────────────────────────────────────────────────────────────────

  getHostKey(scope: string): HostKeyPin | undefined {
    return hostKeys.getHostKey(this.db, scope);
  }

  /** Pins a key on first contact; never replaces an existing pin (a changed key is refused
   *  by the caller, not silently re-pinned). Returns the pin in force. */
  pinHostKey(pin: HostKeyPin): HostKeyPin {
    return hostKeys.pinHostKey(this.db, pin);
  }

  /** Forgets a pin (the user confirmed the host was reinstalled). Journaled. */
  forgetHostKey(scope: string, now: number): void {
    hostKeys.forgetHostKey(this.db, scope, now);
  }

  // ── log cursors ───────────────────────────────────────────────────────────────────────

  setCursor(runId: string, nodeId: string, channel: string, lastSeq: number, now: number): void {
    logCursors.setCursor(this.db, { runId, nodeId, channel }, lastSeq, now);
  }

  getCursor(runId: string, nodeId: string, channel: string): number {
    return logCursors.getCursor(this.db, { runId, nodeId, channel });
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
