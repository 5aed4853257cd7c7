// The ledger's schema against real SQLite files in private temp folders: migrations from
// each older version, host-key pins, idempotent reopening, and the refusal of a ledger
// newer than this Tender.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TenderError } from '../base/tender-error';
import { LATEST_SCHEMA_VERSION } from './migrations';
import {
  cleanUpLedgers,
  commit,
  newRun,
  nodeRecord,
  raw,
  reader,
  RUN,
  seedRun,
  T0,
  tempHome,
  thrown,
  writer,
} from './ledger.test-util';

afterEach(cleanUpLedgers);

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

    expect(LATEST_SCHEMA_VERSION).toBe(9);
    expect(version).toEqual({ value: '9' });
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
      'lease_runs',
      'cells',
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
      'DROP TABLE host_keys; DROP TABLE lease_runs; ALTER TABLE runs DROP COLUMN policy_json; ' +
        'ALTER TABLE leases DROP COLUMN deadman_json; ' +
        'ALTER TABLE leases DROP COLUMN interruption; ALTER TABLE leases DROP COLUMN bid; ' +
        'ALTER TABLE leases DROP COLUMN min_bid; ' +
        'ALTER TABLE leases DROP COLUMN rates_json; ' +
        'DROP TABLE cells; ' +
        'ALTER TABLE runs DROP COLUMN origin; ' +
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
      'DROP TABLE lease_runs; ALTER TABLE runs DROP COLUMN policy_json; ' +
        'ALTER TABLE leases DROP COLUMN deadman_json; ' +
        'ALTER TABLE leases DROP COLUMN interruption; ALTER TABLE leases DROP COLUMN bid; ' +
        'ALTER TABLE leases DROP COLUMN min_bid; ' +
        'ALTER TABLE leases DROP COLUMN rates_json; ' +
        'DROP TABLE cells; ALTER TABLE host_keys DROP COLUMN public_key; ' +
        'ALTER TABLE runs DROP COLUMN origin; ' +
        "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
    );
    db.close();

    const again = writer(home);
    expect(again.getRun(RUN)?.policy).toBeNull();
    for (const l of again.listLeases()) expect(l.deadMan).toBeNull();
    again.close();
  });

  it('upgrades a v3 ledger: leases served only the run that rented them', () => {
    const home = tempHome();
    const first = writer(home);
    const [node] = seedRun(first, 'node-0');
    first.close();
    const db = raw(home);
    db.exec(
      'DROP TABLE lease_runs; ' +
        'ALTER TABLE leases DROP COLUMN interruption; ALTER TABLE leases DROP COLUMN bid; ' +
        'ALTER TABLE leases DROP COLUMN min_bid; ' +
        'ALTER TABLE leases DROP COLUMN rates_json; ' +
        'DROP TABLE cells; ALTER TABLE host_keys DROP COLUMN public_key; ' +
        'ALTER TABLE runs DROP COLUMN origin; ' +
        "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
    );
    db.close();

    const again = writer(home);
    expect(again.servedRuns(node!.label)).toEqual([]);
    expect(again.leasesOfRun(RUN).every((l) => l.servedFrom === null)).toBe(true);
    again.close();
  });

  it('upgrades a v4 ledger: no lease was interrupted, none has a bid', () => {
    const home = tempHome();
    const first = writer(home);
    const [node] = seedRun(first, 'node-0');
    commit(first, node!, { type: 'Start' }, T0 + 1);
    first.close();
    const db = raw(home);
    db.exec(
      'ALTER TABLE leases DROP COLUMN interruption; ALTER TABLE leases DROP COLUMN bid; ' +
        'ALTER TABLE leases DROP COLUMN min_bid; ' +
        'ALTER TABLE leases DROP COLUMN rates_json; ' +
        'DROP TABLE cells; ALTER TABLE host_keys DROP COLUMN public_key; ' +
        'ALTER TABLE runs DROP COLUMN origin; ' +
        "UPDATE meta SET value = '4' WHERE key = 'schema_version'",
    );
    db.close();

    const again = writer(home);
    expect(again.listLeases()).toHaveLength(1);
    for (const l of again.listLeases())
      expect(l).toMatchObject({ interruption: null, bid: null, minBid: null });
    again.close();
  });

  it('upgrades a v5 ledger: every lease billed its price at creation all its life', () => {
    const home = tempHome();
    const first = writer(home);
    const [node] = seedRun(first, 'node-0');
    commit(first, node!, { type: 'Start' }, T0 + 1);
    first.close();
    const db = raw(home);
    db.exec(
      'ALTER TABLE leases DROP COLUMN rates_json; ' +
        'DROP TABLE cells; ALTER TABLE host_keys DROP COLUMN public_key; ' +
        'ALTER TABLE runs DROP COLUMN origin; ' +
        "UPDATE meta SET value = '5' WHERE key = 'schema_version'",
    );
    db.close();

    const again = writer(home);
    expect(again.listLeases()).toHaveLength(1);
    for (const l of again.listLeases()) expect(l.rates).toEqual([]);
    again.close();
  });

  it('upgrades a v6 ledger: its runs are no sweeps', () => {
    const home = tempHome();
    const first = writer(home);
    seedRun(first, 'node-0');
    first.close();
    const db = raw(home);
    db.exec(
      'DROP TABLE cells; ALTER TABLE host_keys DROP COLUMN public_key; ' +
        'ALTER TABLE runs DROP COLUMN origin; ' +
        "UPDATE meta SET value = '6' WHERE key = 'schema_version'",
    );
    db.close();

    const again = writer(home);
    expect(again.getRun(RUN)?.jobName).toBe('train');
    expect(again.listCells(RUN)).toEqual([]);
    expect(again.cellSummary(RUN)).toBeNull();
    again.close();
  });

  it('upgrades a v7 ledger: its pins keep no key blob until the same key is offered again', () => {
    const home = tempHome();
    const first = writer(home);
    first.pinHostKey({
      scope: 'host:a',
      endpoint: 'a:22',
      keyType: 'ssh-ed25519',
      fingerprint: 'SHA256:a',
      pinnedAt: T0,
    });
    first.close();
    const db = raw(home);
    db.exec(
      'ALTER TABLE host_keys DROP COLUMN public_key; ' +
        'ALTER TABLE runs DROP COLUMN origin; ' +
        "UPDATE meta SET value = '7' WHERE key = 'schema_version'",
    );
    db.close();

    const again = writer(home);
    expect(again.getHostKey('host:a')).toMatchObject({ fingerprint: 'SHA256:a', publicKey: null });
    again.close();
  });

  it('upgrades a v8 ledger: its runs have no origin, new runs keep theirs', () => {
    const home = tempHome();
    const first = writer(home);
    seedRun(first, 'node-0');
    first.close();
    const db = raw(home);
    db.exec(
      'ALTER TABLE runs DROP COLUMN origin; ' +
        "UPDATE meta SET value = '8' WHERE key = 'schema_version'",
    );
    db.close();

    const again = writer(home);
    expect(again.getRun(RUN)?.origin).toBeNull();
    again.createRun(
      { ...newRun(1), id: 'r-2', jobId: 'j-2', origin: 'mcp:claude-code' },
      [{ ...nodeRecord('node-0'), id: 'r-2/node-0', runId: 'r-2', label: 'lbl-r2' }],
      T0 + 1,
    );
    expect(again.getRun('r-2')?.origin).toBe('mcp:claude-code');
    expect(again.listRuns(10).map((r) => [r.id, r.origin])).toEqual([
      ['r-2', 'mcp:claude-code'],
      [RUN, null],
    ]);
    expect(again.journal('r-2')[0]?.data).toMatchObject({ origin: 'mcp:claude-code' });
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
      publicKey: null,
    };
    expect(ledger.pinHostKey(pin)).toEqual(pin);
    expect(ledger.pinHostKey({ ...pin, fingerprint: 'SHA256:evil', pinnedAt: T0 + 1 })).toEqual(
      pin,
    );
    // The same key offered again fills in the blob of a pin made before blobs were kept;
    // another key's blob never lands on the pin.
    ledger.pinHostKey({ ...pin, fingerprint: 'SHA256:evil', publicKey: 'RVZJTA==' });
    expect(ledger.getHostKey('lease:l1')?.publicKey).toBeNull();
    ledger.pinHostKey({ ...pin, publicKey: 'QUFB' });
    expect(ledger.getHostKey('lease:l1')).toEqual({ ...pin, publicKey: 'QUFB' });
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
