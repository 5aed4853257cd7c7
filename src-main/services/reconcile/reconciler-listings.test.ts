// What the Reconciler lists, and how often: which providers each pass asks, listings reused
// for a while, an unreachable provider reported while the others reconcile, and passes in
// flight shared or waited for.
import { describe, expect, it } from 'vitest';
import { FakeProvider, label, setup, T0 } from './reconciler.test-util';

describe('Reconciler: which providers a pass asks', () => {
  // idle: no live lease, bills nothing; billing: no live lease, bills; holding: a live
  // lease; unconfigured: bills and holds a live lease, but cannot be used as configured.
  function fourProviders() {
    const idle = new FakeProvider('idle');
    const billing = new FakeProvider('billing', true);
    const holding = new FakeProvider('holding');
    const unconfigured = new FakeProvider('unconfigured', true);
    unconfigured.configured = false;
    const all = [idle, billing, holding, unconfigured];
    const t = setup(all);
    // A live lease without a node: nothing to adopt or lose, only a reason to ask.
    t.ledger.add('holding', 'h-node-0', 'created');
    t.ledger.add('unconfigured', 'u-node-0', 'created');
    return { ...t, all };
  }

  it.each([
    { pass: 'tick(r)', asked: ['holding'] },
    { pass: 'tick(r, true)', asked: ['billing', 'holding'] },
    { pass: 'survey()', asked: ['idle', 'billing', 'holding'] },
  ])('$pass lists $asked', async ({ pass, asked }) => {
    const { reconciler, all } = fourProviders();

    const report =
      pass === 'tick(r)'
        ? await reconciler.tick('r')
        : pass === 'tick(r, true)'
          ? await reconciler.tick('r', true)
          : await reconciler.survey('r', 0);

    expect(all.filter((p) => p.listCalls > 0).map((p) => p.kind)).toEqual(asked);
    expect(all.map((p) => p.listCalls)).toEqual(all.map((p) => (asked.includes(p.kind) ? 1 : 0)));
    expect(report.unreachable).toEqual([]); // not configured is not unreachable
  });
});

describe('Reconciler: reusing listings', () => {
  it.each([
    { elapsedMs: 0, listCalls: 1 },
    { elapsedMs: 4_999, listCalls: 1 },
    { elapsedMs: 5_001, listCalls: 2 },
    { elapsedMs: 60_000, listCalls: 2 },
  ])(
    'a survey $elapsedMs ms after a survey reusing 5 s lists $listCalls time(s) in all',
    async ({ elapsedMs, listCalls }) => {
      const p = new FakeProvider('p').list('r1-node-0');
      const { reconciler, clock } = setup([p], { canWrite: false });
      await reconciler.survey('status', 5_000);
      clock.t += elapsedMs;

      const second = await reconciler.survey('status', 5_000);

      expect(p.listCalls).toBe(listCalls);
      expect(second.orphans.map((o) => o.label)).toEqual([label('r1-node-0')]);
    },
  );

  it('a reused listing is what was listed then, not what the provider lists now', async () => {
    const p = new FakeProvider('p').list('r1-node-0');
    const { reconciler, clock } = setup([p], { canWrite: false });
    await reconciler.survey('status', 5_000);
    p.list('r2-node-0');
    clock.t += 1_000;

    expect((await reconciler.survey('status', 5_000)).orphans.map((o) => o.label)).toEqual([
      label('r1-node-0'),
    ]);
    clock.t += 5_000;
    expect((await reconciler.survey('status', 5_000)).orphans.map((o) => o.label)).toEqual([
      label('r2-node-0'),
    ]);
  });

  it('forgetListings makes the next survey list again', async () => {
    const p = new FakeProvider('p');
    const { reconciler } = setup([p], { canWrite: false });
    await reconciler.survey('status', 5_000);
    await reconciler.survey('status', 5_000);
    expect(p.listCalls).toBe(1);

    reconciler.forgetListings();
    await reconciler.survey('status', 5_000);

    expect(p.listCalls).toBe(2);
  });

  it("a survey right after a tick reuses the tick's listing, and lists only the others", async () => {
    const holding = new FakeProvider('holding');
    const idle = new FakeProvider('idle');
    const { reconciler, ledger, clock } = setup([holding, idle]);
    ledger.add('holding', 'h-node-0', 'created');
    await reconciler.tick('interval');
    expect([holding.listCalls, idle.listCalls]).toEqual([1, 0]);
    clock.t += 1_000;

    await reconciler.survey('status', 5_000);

    expect([holding.listCalls, idle.listCalls]).toEqual([1, 1]);
  });
});

describe('Reconciler: an unreachable provider', () => {
  it('is reported, and the other providers still reconcile', async () => {
    const broken = new FakeProvider('broken', true);
    broken.listError = new Error('connect ECONNREFUSED 127.0.0.1:9');
    const fine = new FakeProvider('fine', true).list('r1-node-0', 'ghost-node-0');
    const { reconciler, ledger, delivered } = setup([broken, fine]);
    const lbl = ledger.add('fine', 'r1-node-0', 'requested', { node: true, createdAt: null });
    ledger.add('broken', 'r2-node-0', 'created', { node: true, createdAt: T0 });

    const report = await reconciler.tick('start', true);

    expect(report.unreachable).toEqual([
      { provider: 'broken', error: 'connect ECONNREFUSED 127.0.0.1:9' },
    ]);
    expect(report.adopted).toEqual([lbl]);
    expect(delivered.map((d) => [d.provider, d.msg.type])).toEqual([['fine', 'LeaseFound']]);
    expect(report.orphans.map((o) => o.label)).toEqual([label('ghost-node-0')]);
    expect(report.lost).toEqual([]); // an unreachable provider's leases are not judged
    expect(broken.isGoneCalls).toBe(0);
  });
});

describe('Reconciler: concurrent passes', () => {
  it('a tick while a pass is in flight shares it: one listing, one report', async () => {
    const p = new FakeProvider('p').list('r1-node-0');
    const { reconciler, ledger } = setup([p]);
    ledger.add('p', 'h-node-0', 'created');
    let release!: () => void;
    p.gate = new Promise((r) => (release = r));

    const first = reconciler.tick('interval');
    const second = reconciler.tick('interval');
    await Promise.resolve();
    release();
    const [a, b] = await Promise.all([first, second]);

    expect(p.listCalls).toBe(1);
    expect(b).toBe(a);
  });

  it('a wider ask waits for the narrower pass in flight, then runs its own', async () => {
    const holding = new FakeProvider('holding');
    const idle = new FakeProvider('idle');
    const { reconciler, ledger } = setup([holding, idle]);
    ledger.add('holding', 'h-node-0', 'created');
    let release!: () => void;
    holding.gate = new Promise((r) => (release = r));

    const tick = reconciler.tick('interval');
    const survey = reconciler.survey('status', 0);
    await Promise.resolve();
    expect(idle.listCalls).toBe(0); // the survey has not started beside the tick
    release();
    holding.gate = null;
    const [t, s] = await Promise.all([tick, survey]);

    expect([t.scope, s.scope]).toEqual(['live', 'every']);
    expect(idle.listCalls).toBe(1);
  });
});
