// Read-only ledgers: none without a file, beside a writer they see each commit, and a
// ledger that still needs a migration is refused.
import Database from 'better-sqlite3';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TenderError } from '../base/tender-error';
import {
  cleanUpLedgers,
  commit,
  reader,
  RUN,
  seedRun,
  T0,
  tempHome,
  thrown,
  writer,
} from './ledger.test-util';

afterEach(cleanUpLedgers);

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
