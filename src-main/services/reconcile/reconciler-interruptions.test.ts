// Interruptions seen in the listing a pass makes anyway: an outbid, stopped or exited lease is
// marked (and journaled) in the pass that first lists it, cleared when listed running again,
// with no provider call of its own.
import { describe, expect, it } from 'vitest';
import type { LeaseInterruption } from '../../contract';
import type { LeaseCondition } from '../../providers/provider';
import { FakeProvider, setup } from './reconciler.test-util';
import { interruptionAfter } from './reconciler';

const OUTBID: LeaseCondition = { state: 'outbid', bid: 0.25, minBid: 0.31 };

describe('Reconciler: interruptions from the listing', () => {
  it('an outbid lease is marked within the pass that lists it, journaled once, one list call', async () => {
    const p = new FakeProvider('p').list('r1-node-0').withCondition('r1-node-0', OUTBID);
    const { reconciler, ledger, clock } = setup([p]);
    const lbl = ledger.add('p', 'r1-node-0', 'created', { node: true });

    const report = await reconciler.tick('interval');
    clock.t += 30_000;
    await reconciler.tick('interval');

    expect(report.interrupted).toEqual([lbl]);
    expect(ledger.leases[0]).toMatchObject({ interruption: 'outbid', bid: 0.25, minBid: 0.31 });
    expect(ledger.journal.filter((e) => e.kind === 'lease.interrupted')).toEqual([
      {
        ts: expect.any(Number),
        runId: 'r-r1-node-0',
        nodeId: 'r-r1-node-0/node-0',
        kind: 'lease.interrupted',
        data: { label: lbl, state: 'outbid' },
      },
    ]);
    expect(p.listCalls).toBe(2); // one listing per pass, nothing else asked
    expect(p.isGoneCalls).toBe(0);
  });

  it('listed running again, the mark is cleared and lease.resumed journaled', async () => {
    const p = new FakeProvider('p').list('r1-node-0').withCondition('r1-node-0', OUTBID);
    const { reconciler, ledger, clock } = setup([p]);
    ledger.add('p', 'r1-node-0', 'created', { node: true });
    await reconciler.tick('interval');

    clock.t += 30_000;
    p.withCondition('r1-node-0', { state: 'running', bid: 0.35, minBid: 0.31 });
    const report = await reconciler.tick('interval');

    expect(report.interrupted).toEqual([]);
    expect(ledger.leases[0]).toMatchObject({ interruption: null, bid: 0.35 });
    expect(ledger.journal.map((e) => e.kind)).toEqual(['lease.interrupted', 'lease.resumed']);
  });

  it.each(['requested', 'destroying', 'destroyed'] as const)(
    'a %s lease is not marked (only a created lease is one that should run)',
    async (state) => {
      const p = new FakeProvider('p').list('r1-node-0').withCondition('r1-node-0', OUTBID);
      const { reconciler, ledger } = setup([p]);
      ledger.add('p', 'r1-node-0', state, { node: true });

      await reconciler.tick('interval', true);

      expect(ledger.leases[0]!.interruption).toBeNull();
    },
  );

  it('a reader only looks', async () => {
    const p = new FakeProvider('p').list('r1-node-0').withCondition('r1-node-0', OUTBID);
    const { reconciler, ledger } = setup([p], { canWrite: false });
    ledger.add('p', 'r1-node-0', 'created', { node: true });

    const report = await reconciler.tick('interval');

    expect(report.interrupted).toEqual([]);
    expect(ledger.leases[0]!.interruption).toBeNull();
  });

  it('a listing without a condition changes nothing (the provider cannot tell)', async () => {
    const p = new FakeProvider('p').list('r1-node-0');
    const { reconciler, ledger } = setup([p]);
    ledger.add('p', 'r1-node-0', 'created', { node: true });
    ledger.leases[0]!.interruption = 'exited';

    await reconciler.tick('interval');

    expect(ledger.leases[0]!.interruption).toBe('exited');
  });
});

describe('interruptionAfter: the mark once a lease is listed in a state', () => {
  it.each<[LeaseCondition['state'], LeaseInterruption | null, LeaseInterruption | null]>([
    ['running', 'outbid', null],
    ['running', null, null],
    ['loading', 'outbid', 'outbid'], // being scheduled again is not running yet
    ['loading', null, null],
    ['outbid', null, 'outbid'],
    ['stopped', 'outbid', 'stopped'],
    ['exited', null, 'exited'],
  ])('listed %s, was %s → %s', (state, was, next) => {
    expect(interruptionAfter(state, was)).toBe(next);
  });
});
