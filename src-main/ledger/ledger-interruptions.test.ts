// The interruption columns (schema v5): written by the reconciler's setInterruption, journaled
// when the lease stops or runs again, and left alone by the node projection.
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanUpLedgers,
  commit,
  leaseOf,
  leaseRow,
  RUN,
  seedRun,
  T0,
  tempHome,
  writer,
} from './ledger.test-util';

afterEach(cleanUpLedgers);

function createdLease() {
  const ledger = writer(tempHome());
  const [start] = seedRun(ledger, 'node-0');
  const requested = commit(ledger, start!, { type: 'Start' }, T0 + 1);
  const created = commit(
    ledger,
    requested,
    { type: 'LeaseCreated', lease: leaseOf(requested), endpoint: null },
    T0 + 2,
  );
  return { ledger, rec: created, label: created.label };
}

describe('setInterruption', () => {
  it('a new lease is running: nothing recorded', () => {
    const { ledger, label } = createdLease();
    expect(leaseRow(ledger, label)).toMatchObject({ interruption: null, bid: null, minBid: null });
  });

  it('outbid: the columns, one lease.interrupted event, and a lease change for live views', () => {
    const { ledger, label } = createdLease();
    const changed: string[] = [];
    ledger.onLeaseChange((l) => changed.push(l));

    ledger.setInterruption(label, { interruption: 'outbid', bid: 0.25, minBid: 0.31 }, T0 + 10);
    ledger.setInterruption(label, { interruption: 'outbid', bid: 0.25, minBid: 0.31 }, T0 + 20);

    expect(leaseRow(ledger, label)).toMatchObject({
      interruption: 'outbid',
      bid: 0.25,
      minBid: 0.31,
    });
    const events = ledger.journal(RUN).filter((e) => e.kind.startsWith('lease.'));
    expect(events).toEqual([
      {
        seq: expect.any(Number),
        ts: T0 + 10,
        runId: RUN,
        nodeId: `${RUN}/node-0`,
        kind: 'lease.interrupted',
        data: { label, state: 'outbid', bid: 0.25, minBid: 0.31 },
      },
    ]);
    expect(changed).toEqual([label]); // the repeat changed nothing
  });

  it('running again: cleared, lease.resumed says what it was; a bid change alone is no event', () => {
    const { ledger, label } = createdLease();
    ledger.setInterruption(label, { interruption: 'outbid', bid: 0.25, minBid: 0.31 }, T0 + 10);
    ledger.setInterruption(label, { interruption: 'outbid', bid: 0.35, minBid: 0.31 }, T0 + 11);
    ledger.setInterruption(label, { interruption: null, bid: 0.35, minBid: 0.31 }, T0 + 12);

    expect(leaseRow(ledger, label)).toMatchObject({ interruption: null, bid: 0.35 });
    const kinds = ledger.journal(RUN).filter((e) => e.kind.startsWith('lease.'));
    expect(kinds.map((e) => [e.kind, e.data])).toEqual([
      ['lease.interrupted', { label, state: 'outbid', bid: 0.25, minBid: 0.31 }],
      ['lease.resumed', { label, was: 'outbid' }],
    ]);
  });

  it('the node projection leaves the columns alone', () => {
    const { ledger, rec, label } = createdLease();
    ledger.setInterruption(label, { interruption: 'exited', bid: null, minBid: null }, T0 + 10);

    commit(ledger, rec, { type: 'Destroy', reason: 'cancelled' }, T0 + 20);

    expect(leaseRow(ledger, label)).toMatchObject({ state: 'destroying', interruption: 'exited' });
  });

  it('an unknown label changes nothing', () => {
    const { ledger } = createdLease();
    ledger.setInterruption('tender-nope', { interruption: 'outbid', bid: 1, minBid: 2 }, T0);
    expect(ledger.journal().filter((e) => e.kind === 'lease.interrupted')).toEqual([]);
  });
});
