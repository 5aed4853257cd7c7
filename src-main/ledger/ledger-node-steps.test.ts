// The FSM commit path: node row, lease projection and journal kept in step by
// commitNodeStep, the journal append-only, and which nodes a restart must resume.
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaseState } from '../contract';
import type { NodeMsg } from '../nodes/messages';
import {
  cleanUpLedgers,
  commit,
  leaseOf,
  leaseRow,
  nodeRecord,
  raw,
  RUN,
  seedRun,
  T0,
  tempHome,
  writer,
} from './ledger.test-util';

afterEach(cleanUpLedgers);

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
