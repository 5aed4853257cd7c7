// The ledger against real SQLite files in private temp folders: schema and migrations, the
// refusal of a newer ledger, the one-writer lock (in this process and across processes),
// readers beside a writer, and the FSM commit path with its lease projection and journal.
import Database from 'better-sqlite3';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaseState } from '../contract';
import { leaseLabel } from '../base/ids';
import { TenderError } from '../base/tender-error';
import type { NodeMsg } from '../nodes/messages';
import { newNodeRecord, type NodeRecord } from './node-record';
import { transition } from '../nodes/transition';
import type { LeaseFacts } from '../providers/provider';
import { Ledger, type NewRun } from './ledger';
import { LATEST_SCHEMA_VERSION } from './migrations';

const T0 = 1_700_000_000_000;
const INSTALL = 'feedbeef';
const RUN = 'r-ledger01';

const homes: string[] = [];
const ledgers: Ledger[] = [];
const children: ChildProcessWithoutNullStreams[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  }
  for (const l of ledgers.splice(0)) l.close();
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function tempHome(): string {
  const h = mkdtempSync(join(tmpdir(), 'tender-ledger-'));
  homes.push(h);
  return h;
}

function writer(home: string): Ledger {
  const l = Ledger.openWriter(home);
  ledgers.push(l);
  return l;
}

function reader(home: string): Ledger | null {
  const l = Ledger.openReader(home);
  if (l) ledgers.push(l);
  return l;
}

/** A raw connection to the ledger file, for what the Ledger API deliberately cannot do. */
function raw(home: string, opts: Database.Options = {}): Database.Database {
  return new Database(join(home, 'ledger.sqlite'), opts);
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

function nodeRecord(logicalId: string): NodeRecord {
  return newNodeRecord({
    runId: RUN,
    logicalId,
    groupId: 'nodes',
    role: 'worker',
    label: leaseLabel(INSTALL, RUN, logicalId),
    desired: { provider: 'local', shape: {}, verify: [], hostKey: 'hk1_x' },
    now: T0,
  });
}

function leaseOf(rec: NodeRecord): LeaseFacts {
  return {
    provider: 'local',
    leaseId: `local:${rec.label}`,
    contractId: rec.label,
    label: rec.label,
    destroyHandle: { provider: 'local', leaseId: `local:${rec.label}`, contractId: rec.label },
    pricePerHour: 0.5,
    metadata: {},
  };
}

function newRun(count: number): NewRun {
  return {
    id: RUN,
    jobId: 'j-1',
    jobName: 'train',
    jobSpec: { name: 'train' },
    source: null,
    provider: 'local',
    count,
    pool: {},
    keep: false,
    outputsDir: '/tmp/outputs',
    policy: {
      maxDurationMs: null,
      idleTimeoutMs: null,
      budgetUsd: null,
      afterJob: 'destroy',
      unreachableGraceMs: 1_800_000,
    },
  };
}

/** A run with one node per logical id, created at T0. */
function seedRun(ledger: Ledger, ...logicalIds: string[]): NodeRecord[] {
  const nodes = logicalIds.map(nodeRecord);
  ledger.createRun(newRun(nodes.length), nodes, T0);
  return nodes;
}

/** One FSM step, committed the way the NodeManager does: the step must apply. */
function commit(ledger: Ledger, rec: NodeRecord, msg: NodeMsg, now: number): NodeRecord {
  const step = transition(rec, msg, now);
  expect(step.ignored).toBeUndefined();
  ledger.commitNodeStep(rec, step.record, msg.type, now);
  return step.record;
}

function leaseRow(ledger: Ledger, label: string) {
  return ledger.listLeases().find((l) => l.label === label);
}

describe('schema', () => {
  it('migrates to the latest schema and records schema_version', () => {
    const home = tempHome();
    writer(home).close();

    const db = raw(home, { readonly: true });
    const names = (
      db.prepare("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").all() as {
        type: string;
        name: string;
      }[]
    ).map((r) => `${r.type}:${r.name}`);
    const version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get();
    db.close();

    expect(LATEST_SCHEMA_VERSION).toBe(3);
    expect(version).toEqual({ value: '3' });
    for (const table of [
      'meta',
      'jobs',
      'runs',
      'nodes',
      'attempts',
      'leases',
      'events',
      'log_cursors',
      'host_keys',
    ])
      expect(names).toContain(`table:${table}`);
    expect(names).toContain('trigger:events_no_update');
    expect(names).toContain('trigger:events_no_delete');
  });

  it('upgrades a v1 ledger in place, keeping its rows', () => {
    const home = tempHome();
    const first = writer(home);
    const install = first.installId();
    first.close();
    const db = raw(home);
    db.exec(
      'DROP TABLE host_keys; ALTER TABLE runs DROP COLUMN policy_json; ' +
        'ALTER TABLE leases DROP COLUMN deadman_json; ' +
        "UPDATE meta SET value = '1' WHERE key = 'schema_version'",
    );
    db.close();

    const again = writer(home);
    expect(again.installId()).toBe(install);
    expect(again.getHostKey('host:x')).toBeUndefined();
    again.close();
  });

  it('upgrades a v2 ledger: runs made before policies have none, leases no switch', () => {
    const home = tempHome();
    const first = writer(home);
    seedRun(first, 'node-0');
    first.close();
    const db = raw(home);
    db.exec(
      'ALTER TABLE runs DROP COLUMN policy_json; ALTER TABLE leases DROP COLUMN deadman_json; ' +
        "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
    );
    db.close();

    const again = writer(home);
    expect(again.getRun(RUN)?.policy).toBeNull();
    for (const l of again.listLeases()) expect(l.deadMan).toBeNull();
    again.close();
  });

  it('pins a host key once and never silently replaces it', () => {
    const home = tempHome();
    const ledger = writer(home);
    const pin = {
      scope: 'lease:l1',
      endpoint: '1.2.3.4:22',
      keyType: 'ssh-ed25519',
      fingerprint: 'SHA256:aaa',
      pinnedAt: T0,
    };
    expect(ledger.pinHostKey(pin)).toEqual(pin);
    expect(ledger.pinHostKey({ ...pin, fingerprint: 'SHA256:evil', pinnedAt: T0 + 1 })).toEqual(
      pin,
    );
    expect(ledger.journal().filter((e) => e.kind === 'host_key.pinned')).toHaveLength(1);
    ledger.forgetHostKey('lease:l1', T0 + 2);
    expect(ledger.getHostKey('lease:l1')).toBeUndefined();
    ledger.close();
  });

  it('reopens idempotently: same install id, same version, rows kept', () => {
    const home = tempHome();
    const first = writer(home);
    const installId = first.installId();
    seedRun(first, 'node-0');
    first.close();

    const second = writer(home);

    expect(installId).toMatch(/^[0-9a-f]{8}$/);
    expect(second.installId()).toBe(installId);
    expect(second.getRun(RUN)?.jobName).toBe('train');
    expect(second.journal().map((e) => e.kind)).toEqual(['run.created']);
    second.close();
    const db = raw(home, { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM meta WHERE key = 'schema_version'").get()).toEqual(
      { n: 1 },
    );
    db.close();
  });
});

describe('a ledger newer than this Tender', () => {
  /** A ledger at schema v99, left in `journalMode`, and its bytes. */
  function futureLedger(journalMode: 'wal' | 'delete'): { home: string; bytes: Buffer } {
    const home = tempHome();
    writer(home).close();
    const db = raw(home);
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    db.pragma(`journal_mode = ${journalMode}`);
    db.close();
    return { home, bytes: readFileSync(join(home, 'ledger.sqlite')) };
  }

  function expectRefusal(err: unknown): void {
    expect(err).toBeInstanceOf(TenderError);
    expect((err as TenderError).code).toBe('conflict');
    expect((err as TenderError).message).toContain('v99');
    expect((err as TenderError).message).toContain(`v${LATEST_SCHEMA_VERSION}`);
  }

  for (const mode of ['wal', 'delete'] as const) {
    it(`refuses to open for writing, leaving the file byte-identical (${mode} journal)`, () => {
      const { home, bytes } = futureLedger(mode);

      const err = thrown(() => writer(home));

      expectRefusal(err);
      expect(readFileSync(join(home, 'ledger.sqlite')).equals(bytes)).toBe(true);
      // The refusal released the writer lock.
      expect(() => writer(home)).toThrow(/v99/);
    });

    it(`refuses to open for reading, leaving the file byte-identical (${mode} journal)`, () => {
      const { home, bytes } = futureLedger(mode);

      const err = thrown(() => reader(home));

      expectRefusal(err);
      expect(readFileSync(join(home, 'ledger.sqlite')).equals(bytes)).toBe(true);
    });
  }
});

describe('one writer per folder', () => {
  it('refuses a second writer in the same process with busy, until the first closes', () => {
    const home = tempHome();
    const first = writer(home);

    const err = thrown(() => writer(home));

    expect(err).toBeInstanceOf(TenderError);
    expect((err as TenderError).code).toBe('busy');
    expect((err as TenderError).message).toContain('already running');
    first.close();
    expect(writer(home).isReadonly).toBe(false);
  });

  // The child takes the lock on tender.lock the way SQLite's exclusive locking mode does
  // (the same pragmas ProcessLock uses): what is tested is that the kernel-level lock is
  // seen across processes, and dropped when its holder dies.
  const SQLITE = createRequire(import.meta.url).resolve('better-sqlite3');
  const takeLock = (home: string) => `
    const Database = require(${JSON.stringify(SQLITE)});
    const db = new Database(${JSON.stringify(join(home, 'tender.lock'))}, { timeout: 0 });
    try {
      db.pragma('journal_mode = DELETE');
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL)');
      db.exec('BEGIN IMMEDIATE; DELETE FROM holder; INSERT INTO holder VALUES (0); COMMIT');
    } catch (err) {
      console.log(JSON.stringify({ ok: false, code: err.code }));
      process.exit(0);
    }
    require('node:fs').writeFileSync(${JSON.stringify(join(home, 'tender.pid'))}, process.pid + '\\n');
    console.log(JSON.stringify({ ok: true }));
    if (process.argv[1] === 'hold') setInterval(() => {}, 1 << 30);
    else db.close();
  `;

  /** Starts a child that tries to take the lock; resolves with its first report. */
  function lockChild(
    home: string,
    mode: 'try' | 'hold',
  ): { child: ChildProcessWithoutNullStreams; report: Promise<{ ok: boolean; code?: string }> } {
    const child = spawn(process.execPath, ['-e', takeLock(home), mode]);
    children.push(child);
    const report = new Promise<{ ok: boolean; code?: string }>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const nl = out.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as { ok: boolean; code?: string });
      });
      child.once('exit', (code) => reject(new Error(`lock child exited ${code}: ${err}`)));
    });
    return { child, report };
  }

  it('is held against another process while a writer is open, and freed by close', async () => {
    const home = tempHome();
    const ledger = writer(home);

    const whileOpen = await lockChild(home, 'try').report;
    ledger.close();
    const afterClose = await lockChild(home, 'try').report;

    expect(whileOpen.ok).toBe(false);
    expect(whileOpen.code).toMatch(/^SQLITE_BUSY/);
    expect(afterClose).toEqual({ ok: true });
  });

  it('names the other process, and is dropped by the kernel when that process is killed -9', async () => {
    const home = tempHome();
    const { child, report } = lockChild(home, 'hold');
    expect(await report).toEqual({ ok: true });

    const err = thrown(() => writer(home));
    const exited = new Promise((r) => child.once('exit', (_code, signal) => r(signal)));
    child.kill('SIGKILL');

    expect((err as TenderError).code).toBe('busy');
    expect((err as TenderError).message).toContain('already running');
    expect((err as TenderError).message).toContain(`pid ${child.pid}`);
    expect(await exited).toBe('SIGKILL');
    expect(writer(home).isReadonly).toBe(false);
  });
});

describe('readers', () => {
  it('returns null when no ledger exists, and creates nothing', () => {
    const home = tempHome();

    expect(reader(home)).toBeNull();
    expect(readdirSync(home)).toEqual([]);
  });

  it('opens alongside a writer and sees each committed row', () => {
    const home = tempHome();
    const w = writer(home);
    const [node] = seedRun(w, 'node-0');
    const r = reader(home)!;

    expect(r.isReadonly).toBe(true);
    expect(r.installId()).toBe(w.installId());
    expect(r.getRun(RUN)?.status).toBe('pending');
    expect(r.getNode(node!.id)?.stage).toBe('new');

    const next = commit(w, node!, { type: 'Start' }, T0 + 1);

    expect(r.getNode(node!.id)).toEqual(next);
    expect(r.liveLeases().map((l) => l.state)).toEqual(['requested']);
    expect(() => r.append({ ts: T0, runId: null, nodeId: null, kind: 'x', data: {} })).toThrow(
      /readonly/i,
    );
  });

  it('refuses a ledger that still needs a migration, pointing at a writing command', () => {
    const home = tempHome();
    new Database(join(home, 'ledger.sqlite')).close(); // an empty file: schema v0

    const err = thrown(() => reader(home));

    expect((err as TenderError).code).toBe('conflict');
    expect((err as TenderError).message).toContain('needs an upgrade');
  });
});

describe('commitNodeStep', () => {
  it('keeps node row, lease projection and journal in step through a node’s whole life', () => {
    const home = tempHome();
    const ledger = writer(home);
    const [start] = seedRun(ledger, 'node-0');
    let rec = start!;
    const lease = leaseOf(rec);
    const endpoint = { kind: 'local' as const, dir: '/tmp/n0' };
    const address = { runtime: 'node', bundleWord: 'a.cjs', dirWord: '/tmp/n0' };
    const steps: [NodeMsg, LeaseState][] = [
      [{ type: 'Start' }, 'requested'],
      [{ type: 'LeaseCreated', lease, endpoint }, 'created'],
      [{ type: 'BootstrapStarted', sessionId: 1 }, 'created'],
      [{ type: 'BootstrapObserved', stage: 'ssh_ready', lastStdoutSeq: 4 }, 'created'],
      [
        {
          type: 'AgentJoined',
          agent: { agentId: 'ag-1', version: '0.1.0', capabilities: {}, address },
        },
        'created',
      ],
      [{ type: 'BootstrapClosed' }, 'created'],
      [{ type: 'HandoffComplete' }, 'created'],
      [{ type: 'Destroy', reason: 'run ended' }, 'destroying'],
      [{ type: 'DestroyFailed', error: 'HTTP 500' }, 'destroying'],
      [{ type: 'DestroyConfirmed' }, 'destroyed'],
    ];
    const journalBefore = ledger.journal(RUN);
    expect(journalBefore.map((e) => e.kind)).toEqual(['run.created']);
    expect(leaseRow(ledger, rec.label)).toBeUndefined(); // `new` has no lease yet

    steps.forEach(([msg, leaseState], i) => {
      const now = T0 + (i + 1) * 1_000;
      const prev = rec;

      rec = commit(ledger, prev, msg, now);

      expect(ledger.getNode(rec.id)).toEqual(rec);
      expect(leaseRow(ledger, rec.label)?.state).toBe(leaseState);
      const journal = ledger.journal(RUN);
      expect(journal).toHaveLength(journalBefore.length + i + 1);
      expect(journal.at(-1)).toMatchObject({
        ts: now,
        runId: RUN,
        nodeId: rec.id,
        kind: 'node.step',
        data: { msg: msg.type, from: prev.stage, to: rec.stage },
      });
      expect(journal.at(-1)!.seq).toBeGreaterThan(journal.at(-2)!.seq);
    });

    expect(rec.stage).toBe('destroyed');
    expect(leaseRow(ledger, rec.label)).toMatchObject({
      leaseId: lease.leaseId,
      provider: 'local',
      runId: RUN,
      nodeId: rec.id,
      destroyHandle: lease.destroyHandle,
      pricePerHour: 0.5,
      requestedAt: T0 + 1_000, // the Start commit wrote the intent
      createdAt: T0 + 2_000, // the LeaseCreated commit; kept by later steps
      destroyedAt: T0 + 10_000,
      destroyAttempts: 1,
      lastError: 'HTTP 500',
      reason: 'run ended',
    });
    expect(ledger.journal(RUN).map((e) => (e.data as { to?: string }).to ?? e.kind)).toEqual([
      'run.created',
      'lease_requested',
      'endpoint_known',
      'bootstrap_running',
      'bootstrap_running',
      'agent_joined',
      'handed_off',
      'dormant',
      'destroying',
      'destroying',
      'destroyed',
    ]);
    expect(ledger.liveLeases()).toEqual([]);
  });

  it('projects a failed create as not_created', () => {
    const home = tempHome();
    const ledger = writer(home);
    const [start] = seedRun(ledger, 'node-0');
    const requested = commit(ledger, start!, { type: 'Start' }, T0 + 1);

    const failed = commit(ledger, requested, { type: 'LeaseFailed', reason: 'no offers' }, T0 + 2);

    expect(failed.stage).toBe('failed');
    expect(leaseRow(ledger, failed.label)).toMatchObject({
      state: 'not_created',
      leaseId: null,
      createdAt: null,
      reason: 'lease: no offers',
    });
    expect(ledger.liveLeases()).toEqual([]);
  });

  it('writes no lease row for a node destroyed before any lease was asked for', () => {
    const home = tempHome();
    const ledger = writer(home);
    const [start] = seedRun(ledger, 'node-0');

    const gone = commit(ledger, start!, { type: 'Destroy', reason: 'cancelled' }, T0 + 1);

    expect(gone.stage).toBe('destroyed');
    expect(ledger.listLeases()).toEqual([]);
  });

  it('refuses a step for a node the ledger does not hold, writing nothing', () => {
    const home = tempHome();
    const ledger = writer(home);
    seedRun(ledger, 'node-0');
    const stranger = {
      ...nodeRecord('node-9'),
      id: 'r-nowhere/node-9',
      label: 'tender-x-nowhere-node-9',
    };
    const journal = ledger.journal();

    expect(() => commit(ledger, stranger, { type: 'Start' }, T0 + 1)).toThrow(
      /no node r-nowhere\/node-9/,
    );
    expect(ledger.journal()).toEqual(journal);
    expect(ledger.listLeases()).toEqual([]);
  });

  it('keeps the journal append-only', () => {
    const home = tempHome();
    const ledger = writer(home);
    const [start] = seedRun(ledger, 'node-0');
    commit(ledger, start!, { type: 'Start' }, T0 + 1);
    const before = ledger.journal();
    const db = raw(home, { timeout: 5_000 });

    try {
      expect(() => db.prepare("UPDATE events SET kind = 'forged'").run()).toThrow(/append-only/);
      expect(() => db.prepare('DELETE FROM events').run()).toThrow(/append-only/);
    } finally {
      db.close();
    }
    expect(ledger.journal()).toEqual(before);
  });
});

describe('unfinishedNodes', () => {
  it('leaves out destroyed nodes and failed nodes without a lease, keeps failed ones with one', () => {
    const home = tempHome();
    const ledger = writer(home);
    const [a, b, c, d] = seedRun(ledger, 'node-a', 'node-b', 'node-c', 'node-d');
    const now = T0 + 1;
    // node-a: destroyed before it ever started.
    commit(ledger, a!, { type: 'Destroy', reason: 'cancelled' }, now);
    // node-b: failed to get a lease.
    const bReq = commit(ledger, b!, { type: 'Start' }, now);
    commit(ledger, bReq, { type: 'LeaseFailed', reason: 'no offers' }, now);
    // node-c: got a lease, then failed: its lease may still bill.
    const cReq = commit(ledger, c!, { type: 'Start' }, now);
    const cLease = commit(
      ledger,
      cReq,
      { type: 'LeaseCreated', lease: leaseOf(cReq), endpoint: null },
      now,
    );
    const cFailed = commit(ledger, cLease, { type: 'EndpointFailed', reason: 'exited' }, now);
    // node-d: waiting for its lease.
    const dReq = commit(ledger, d!, { type: 'Start' }, now);

    const unfinished = ledger.unfinishedNodes();

    expect(unfinished).toEqual([cFailed, dReq]);
    expect(cFailed.stage).toBe('failed');
  });
});

describe('orphans', () => {
  const orphan = {
    label: `tender-${INSTALL}-lost-node-0`,
    leaseId: 'local:lost',
    provider: 'local',
    handle: { provider: 'local', leaseId: 'local:lost', contractId: 'lost' },
  };

  it('records an orphan as destroying before anything is done to it, then settles it', () => {
    const home = tempHome();
    const ledger = writer(home);

    ledger.recordOrphan(orphan, T0);

    expect(ledger.liveLeases()).toEqual([
      expect.objectContaining({
        label: orphan.label,
        leaseId: orphan.leaseId,
        state: 'destroying',
        destroyHandle: orphan.handle,
        runId: null,
        nodeId: null,
        requestedAt: T0,
        destroyAttempts: 0,
        reason: expect.stringContaining('orphan'),
      }),
    ]);

    ledger.settleOrphan(orphan.label, { confirmed: false, error: 'HTTP 503' }, T0 + 1);

    expect(leaseRow(ledger, orphan.label)).toMatchObject({
      state: 'destroying',
      destroyAttempts: 1,
      lastError: 'HTTP 503',
      destroyedAt: null,
    });

    ledger.settleOrphan(orphan.label, { confirmed: true, error: null }, T0 + 2);

    expect(leaseRow(ledger, orphan.label)).toMatchObject({
      state: 'destroyed',
      destroyAttempts: 2,
      lastError: null,
      destroyedAt: T0 + 2,
    });
    expect(ledger.liveLeases()).toEqual([]);
    expect(ledger.journal().map((e) => [e.kind, e.data])).toEqual([
      ['orphan.destroying', { label: orphan.label, leaseId: orphan.leaseId }],
      ['orphan.destroy_failed', { label: orphan.label, error: 'HTTP 503' }],
      ['orphan.destroyed', { label: orphan.label, error: null }],
    ]);
  });

  it('turns a lease the ledger wrote off as not_created back into one to destroy', () => {
    const home = tempHome();
    const ledger = writer(home);
    const [start] = seedRun(ledger, 'node-0');
    const req = commit(ledger, start!, { type: 'Start' }, T0 + 1);
    commit(ledger, req, { type: 'LeaseFailed', reason: 'timeout' }, T0 + 2);
    const found = { ...orphan, label: req.label, leaseId: `local:${req.label}` };

    ledger.recordOrphan(found, T0 + 3);

    expect(leaseRow(ledger, req.label)).toMatchObject({
      state: 'destroying',
      leaseId: found.leaseId,
      destroyHandle: found.handle,
      runId: RUN,
    });
  });
});
