import { describe, expect, it } from 'vitest';
import { lease, node, run, status, T0 } from './fixtures.test-util';
import { buildLedger, isNodeLive, rowAccrued, totals } from './ledger-model';

const HOUR = 3_600_000;

const liveNode = node([
  ['new', T0],
  ['dormant', T0 + 1_000],
]);
const goneNode = node(
  [
    ['new', T0],
    ['destroyed', T0 + 1_000],
  ],
  { id: 'r-old000/node-0', runId: 'r-old000', label: 'tender-i-old-node-0' },
);
const liveRun = run({ nodes: [liveNode], createdAt: T0 });
const oldRun = run({
  id: 'r-old000',
  status: 'completed',
  createdAt: T0 + 5_000, // newer than the live run, still listed after it
  endedAt: T0 + 6_000,
  nodes: [goneNode],
});
const liveLease = lease({});
const oldLease = lease({
  label: 'tender-i-old-node-0',
  runId: 'r-old000',
  nodeId: 'r-old000/node-0',
  state: 'destroyed',
  destroyedAt: T0 + HOUR,
});

describe('the ledger model', () => {
  it('groups nodes with their leases by run, live runs first', () => {
    const m = buildLedger(
      status({ runs: [oldRun, liveRun], leases: [liveLease, oldLease] }),
      'all',
    );
    expect(m.groups.map((g) => g.run.id)).toEqual(['r-aaaaaa', 'r-old000']);
    expect(m.groups[0]!.rows[0]!.lease?.label).toBe(liveLease.label);
    expect(m.groups[1]!.rows[0]).toMatchObject({ isLive: false, lease: { state: 'destroyed' } });
    expect(m.isEmpty).toBe(false);
  });

  it('"live only" hides ended runs and ended nodes, and counts what it hid', () => {
    const twoNodes = run({
      nodes: [liveNode, { ...goneNode, id: 'r-aaaaaa/node-1', runId: 'r-aaaaaa', label: 'x' }],
    });
    const m = buildLedger(
      status({ runs: [oldRun, twoNodes], leases: [liveLease, oldLease] }),
      'live',
    );
    expect(m.groups.map((g) => g.run.id)).toEqual(['r-aaaaaa']);
    expect(m.groups[0]!.rows.map((r) => r.node.id)).toEqual(['r-aaaaaa/node-0']);
    expect(m.groups[0]!.hiddenRows).toBe(1);
    expect(m.hiddenRuns).toBe(1);
  });

  it('keeps a replaced lease with its node, and a failed node whose lease still bills is live', () => {
    const replaced = lease({
      label: 'tender-i-r1-node-0-old',
      state: 'destroyed',
      destroyedAt: T0 + HOUR,
    });
    const failed = node([
      ['new', T0],
      ['failed', T0 + 10],
    ]);
    const m = buildLedger(
      status({ runs: [run({ nodes: [failed] })], leases: [liveLease, replaced] }),
      'all',
    );
    const row = m.groups[0]!.rows[0]!;
    expect(row.earlier.map((l) => l.label)).toEqual([replaced.label]);
    expect(row.isLive).toBe(true);
    expect(m.groups[0]!.strays).toEqual([]);
    expect(rowAccrued(row, T0 + 2 * HOUR)).toBeCloseTo(3); // 2 h live + 1 h replaced
    expect(isNodeLive(failed, null)).toBe(false);
  });

  it('lists leases without a run apart, and what needs a person on top', () => {
    const adopted = lease({
      label: 'tender-i-x-node-9',
      runId: null,
      nodeId: null,
      state: 'destroying',
    });
    const failing = lease({ state: 'destroying', lastError: 'HTTP 500' });
    const m = buildLedger(
      status({
        leases: [adopted, failing],
        orphans: [{ provider: 'vastai', leaseId: 'vastai:9', label: 'tender-i-y-node-0' }],
        unreachable: [{ provider: 'vastai', error: 'timeout' }],
      }),
      'live',
    );
    expect(m.loose.map((l) => l.label)).toEqual([adopted.label, failing.label]);
    expect(m.attention.orphans).toHaveLength(1);
    expect(m.attention.leases.map((l) => l.lastError)).toEqual(['HTTP 500']);
    expect(m.attention.unreachable).toHaveLength(1);
  });

  it('a warm node passed to a later run is ended in its own run; the lease lists with the later one', () => {
    const released = node(
      [
        ['new', T0],
        ['dormant', T0 + 1_000],
        ['released', T0 + 2_000],
      ],
      { releasedTo: 'r-bbbbbb/node-0' },
    );
    const claimed = node([['dormant', T0 + 2_000]], {
      id: 'r-bbbbbb/node-0',
      runId: 'r-bbbbbb',
      claimedFrom: { runId: 'r-aaaaaa', nodeId: 'r-aaaaaa/node-0' },
    });
    const first = run({ status: 'completed', nodes: [released] });
    const second = run({ id: 'r-bbbbbb', status: 'completed', nodes: [claimed] });
    // The claim moved the lease (same label) to the later run's node.
    const held = lease({
      runId: 'r-bbbbbb',
      nodeId: 'r-bbbbbb/node-0',
      servedRuns: ['r-aaaaaa', 'r-bbbbbb'],
      warm: { hostKey: 'hk1_a', idleEndsAt: T0 + HOUR },
    });
    const m = buildLedger(status({ runs: [first, second], leases: [held] }), 'live');
    expect(m.groups.map((g) => g.run.id)).toEqual(['r-bbbbbb']);
    expect(m.groups[0]!.rows[0]!.lease?.label).toBe(held.label);
    expect(isNodeLive(released, null)).toBe(false);
    const all = buildLedger(status({ runs: [first, second], leases: [held] }), 'all');
    const row = all.groups.find((g) => g.run.id === 'r-aaaaaa')!.rows[0]!;
    expect(row).toMatchObject({ lease: null, isLive: false });
  });

  it('is empty only with no run, no lease and no orphan', () => {
    expect(buildLedger(status(), 'all').isEmpty).toBe(true);
    const orphanOnly = status({
      orphans: [{ provider: 'vastai', leaseId: 'vastai:1', label: 'l' }],
    });
    expect(buildLedger(orphanOnly, 'all').isEmpty).toBe(false);
  });

  it('totals what live leases bill now and what every lease has cost', () => {
    const t = totals(
      [liveLease, oldLease, lease({ state: 'destroying', pricePerHour: 0.5 })],
      T0 + HOUR,
    );
    expect(t.perHour).toBeCloseTo(1.5);
    expect(t.live).toBe(2);
    expect(t.accrued).toBeCloseTo(1 + 1 + 0.5);
  });
});
