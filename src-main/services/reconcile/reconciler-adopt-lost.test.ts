// The writer's judgments: a requested lease the provider lists is adopted, a lease no longer
// listed (past the grace, and gone) is lost; a reader only looks.
import { describe, expect, it } from 'vitest';
import { factsOf, FakeProvider, label, setup, T0 } from './reconciler.test-util';

const GRACE_MS = 2 * 60_000; // the reconciler's visibility grace for a young lease

describe('Reconciler: the writer adopts and marks lost; a reader only looks', () => {
  it.each([
    { canWrite: true, adopted: true },
    { canWrite: false, adopted: false },
  ])(
    'a requested lease the provider lists (canWrite $canWrite): adopted $adopted',
    async ({ canWrite, adopted }) => {
      const p = new FakeProvider('p').list('r1-node-0');
      const { reconciler, ledger, delivered } = setup([p], { canWrite });
      const lbl = ledger.add('p', 'r1-node-0', 'requested', { node: true, createdAt: null });

      const report = await reconciler.tick('interval');

      expect(report.adopted).toEqual(adopted ? [lbl] : []);
      expect(delivered).toEqual(
        adopted
          ? [
              {
                nodeId: 'r-r1-node-0/node-0',
                provider: 'p',
                msg: { type: 'LeaseFound', lease: factsOf('p', lbl), endpoint: null },
              },
            ]
          : [],
      );
      expect(report.orphans).toEqual([]); // requested is live: not an orphan either way
    },
  );

  it.each([
    { state: 'created', ageMs: 3 * 60_000, gone: true, canWrite: true, lost: true, asked: 1 },
    { state: 'destroying', ageMs: 3 * 60_000, gone: true, canWrite: true, lost: true, asked: 1 },
    { state: 'created', ageMs: GRACE_MS - 1, gone: true, canWrite: true, lost: false, asked: 0 },
    { state: 'created', ageMs: 3 * 60_000, gone: false, canWrite: true, lost: false, asked: 1 },
    { state: 'created', ageMs: 3 * 60_000, gone: true, canWrite: false, lost: false, asked: 0 },
  ] as const)(
    'a $state lease no longer listed, $ageMs ms old, isGone $gone, canWrite $canWrite: lost $lost',
    async ({ state, ageMs, gone, canWrite, lost, asked }) => {
      const p = new FakeProvider('p'); // lists nothing
      p.gone = gone;
      const { reconciler, ledger, clock, delivered } = setup([p], { canWrite });
      const lbl = ledger.add('p', 'r1-node-0', state, { node: true, createdAt: T0 });
      clock.t = T0 + ageMs;

      const report = await reconciler.tick('interval');

      expect(report.lost).toEqual(lost ? [lbl] : []);
      expect(delivered).toEqual(
        lost
          ? [
              {
                nodeId: 'r-r1-node-0/node-0',
                provider: 'p',
                msg: { type: 'LeaseLost', reason: 'the provider no longer lists it' },
              },
            ]
          : [],
      );
      expect(p.isGoneCalls).toBe(asked);
    },
  );

  it('a lease still listed is neither lost nor asked about', async () => {
    const p = new FakeProvider('p').list('r1-node-0');
    const { reconciler, ledger, clock, delivered } = setup([p]);
    ledger.add('p', 'r1-node-0', 'created', { node: true, createdAt: T0 });
    clock.t = T0 + 10 * 60_000;

    const report = await reconciler.tick('interval');

    expect([report.lost, report.adopted, delivered, p.isGoneCalls]).toEqual([[], [], [], 0]);
  });

  it('a reader never delivers and never appends to the journal', async () => {
    const p = new FakeProvider('p').list('r1-node-0', 'ghost-node-0');
    const { reconciler, ledger, clock, delivered } = setup([p], { canWrite: false });
    ledger.add('p', 'r1-node-0', 'requested', { node: true, createdAt: null });
    ledger.add('p', 'r2-node-0', 'created', { node: true, createdAt: T0 });
    clock.t = T0 + 10 * 60_000;

    const report = await reconciler.tick('start', true);
    await reconciler.survey('status', 0);

    expect(report.orphans.map((o) => o.label)).toEqual([label('ghost-node-0')]);
    expect(delivered).toEqual([]);
    expect(ledger.journal).toEqual([]);
    expect(p.isGoneCalls).toBe(0);
  });

  it.each([
    { listed: true, gone: false, canWrite: true, retried: true },
    { listed: false, gone: false, canWrite: true, retried: true },
    { listed: false, gone: true, canWrite: true, retried: false }, // destroyed instead
    { listed: true, gone: false, canWrite: false, retried: false },
  ])(
    'a destroying lease (listed $listed, isGone $gone, canWrite $canWrite): its destroy retried $retried',
    async ({ listed, gone, canWrite, retried }) => {
      const p = new FakeProvider('p');
      if (listed) p.list('r1-node-0');
      p.gone = gone;
      const { reconciler, ledger, clock, retried: got } = setup([p], { canWrite });
      ledger.add('p', 'r1-node-0', 'destroying', { node: true, createdAt: T0 });
      clock.t = T0 + 3 * 60_000;
      await reconciler.tick('interval');
      expect(got).toEqual(retried ? ['r-r1-node-0/node-0'] : []);
    },
  );
});
