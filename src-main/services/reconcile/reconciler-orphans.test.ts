// The Reconciler's orphan rule: a listed label whose ledger lease is not live is an orphan,
// reported for every provider sorted by label, and journaled once across passes.
import { describe, expect, it } from 'vitest';
import type { LeaseState } from '../../contract';
import { factsOf, FakeProvider, label, PREFIX, setup, T0 } from './reconciler.test-util';

const NOT_LIVE: (LeaseState | 'absent')[] = ['absent', 'destroyed', 'not_created', 'lost'];
const LIVE: LeaseState[] = ['requested', 'created', 'destroying'];

describe('Reconciler: the orphan rule', () => {
  it.each([
    ...NOT_LIVE.map((state) => ({ state, orphan: true })),
    ...LIVE.map((state) => ({ state, orphan: false })),
  ])('a listed label whose ledger state is $state: orphan $orphan', async ({ state, orphan }) => {
    const p = new FakeProvider('p').list('r1-node-0');
    // A reader: nothing is delivered or journaled, only what the pass sees is compared.
    const { reconciler, ledger } = setup([p], { canWrite: false });
    if (state !== 'absent') ledger.add('p', 'r1-node-0', state);

    const report = await reconciler.survey('test', 0);

    expect(report.orphans.map((o) => o.label)).toEqual(orphan ? [label('r1-node-0')] : []);
    expect(p.prefixesAsked).toEqual([PREFIX]);
  });

  it('reports orphans of every provider sorted by label, with their facts', async () => {
    const a = new FakeProvider('a').list('zz-node-0', 'bb-node-0');
    const b = new FakeProvider('b').list('cc-node-0', 'aa-node-0');
    const { reconciler } = setup([a, b], { canWrite: false });

    const report = await reconciler.survey('test', 0);

    expect(report.orphans.map((o) => [o.provider, o.label])).toEqual([
      ['b', label('aa-node-0')],
      ['a', label('bb-node-0')],
      ['b', label('cc-node-0')],
      ['a', label('zz-node-0')],
    ]);
    expect(report.orphans[0]).toMatchObject({
      leaseId: `b:${label('aa-node-0')}`,
      facts: factsOf('b', label('aa-node-0')),
    });
  });
});

describe('Reconciler: orphans are journaled once', () => {
  it('journals each orphan once across passes, and a new one when it appears', async () => {
    const p = new FakeProvider('p', true).list('b-node-0', 'a-node-0');
    const { reconciler, ledger, clock } = setup([p]);

    await reconciler.tick('start', true);
    clock.t += 10_000;
    await reconciler.survey('status', 0);
    await reconciler.tick('wake', true);
    p.list('b-node-0', 'a-node-0', 'c-node-0');
    clock.t += 10_000;
    await reconciler.survey('status', 0);

    expect(ledger.journal).toEqual([
      {
        ts: T0,
        runId: null,
        nodeId: null,
        kind: 'orphan.seen',
        data: { label: label('a-node-0'), reason: 'start' },
      },
      {
        ts: T0,
        runId: null,
        nodeId: null,
        kind: 'orphan.seen',
        data: { label: label('b-node-0'), reason: 'start' },
      },
      {
        ts: T0 + 20_000,
        runId: null,
        nodeId: null,
        kind: 'orphan.seen',
        data: { label: label('c-node-0'), reason: 'status' },
      },
    ]);
  });
});
