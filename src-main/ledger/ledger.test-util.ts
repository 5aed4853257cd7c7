// Shared fixtures of the ledger's unit tests (ledger-*.test.ts): real SQLite files in
// private temp folders, a run of local nodes, and the FSM commit path the NodeManager uses.
// Each test file registers `afterEach(cleanUpLedgers)`. Not part of any bundle.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { leaseLabel } from '../base/ids';
import type { NodeMsg } from '../nodes/messages';
import { newNodeRecord, type NodeRecord } from './node-record';
import { transition } from '../nodes/transition';
import type { LeaseFacts } from '../providers/provider';
import { Ledger, type NewRun } from './ledger';

export const T0 = 1_700_000_000_000;
export const INSTALL = 'feedbeef';
export const RUN = 'r-ledger01';

const homes: string[] = [];
const ledgers: Ledger[] = [];

/** Closes every ledger a test opened, then removes its temp folders. */
export function cleanUpLedgers(): void {
  for (const l of ledgers.splice(0)) l.close();
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
}

export function tempHome(): string {
  const h = mkdtempSync(join(tmpdir(), 'tender-ledger-'));
  homes.push(h);
  return h;
}

export function writer(home: string): Ledger {
  const l = Ledger.openWriter(home);
  ledgers.push(l);
  return l;
}

export function reader(home: string): Ledger | null {
  const l = Ledger.openReader(home);
  if (l) ledgers.push(l);
  return l;
}

/** A raw connection to the ledger file, for what the Ledger API deliberately cannot do. */
export function raw(home: string, opts: Database.Options = {}): Database.Database {
  return new Database(join(home, 'ledger.sqlite'), opts);
}

export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

export function nodeRecord(logicalId: string): NodeRecord {
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

export function leaseOf(rec: NodeRecord): LeaseFacts {
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

export function newRun(count: number): NewRun {
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
export function seedRun(ledger: Ledger, ...logicalIds: string[]): NodeRecord[] {
  const nodes = logicalIds.map(nodeRecord);
  ledger.createRun(newRun(nodes.length), nodes, T0);
  return nodes;
}

/** One FSM step, committed the way the NodeManager does: the step must apply. */
export function commit(ledger: Ledger, rec: NodeRecord, msg: NodeMsg, now: number): NodeRecord {
  const step = transition(rec, msg, now);
  expect(step.ignored).toBeUndefined();
  ledger.commitNodeStep(rec, step.record, msg.type, now);
  return step.record;
}

export function leaseRow(ledger: Ledger, label: string) {
  return ledger.listLeases().find((l) => l.label === label);
}
