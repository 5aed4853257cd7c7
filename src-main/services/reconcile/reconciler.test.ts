import { describe, expect, it } from 'vitest';
import { labelPrefix } from '../../base/ids';
import type { LeaseState, PoolSpec } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import { newNodeRecord, type NodeRecord } from '../../ledger/node-record';
import type { JournalEvent, LeaseRow } from '../../ledger/rows';
import type { NodeMsg } from '../../nodes/messages';
import type { NodeShape } from '../../providers/pool-shapes';
import type {
  CreateLeaseResult,
  DestroyHandle,
  LeaseFacts,
  NodeEndpoint,
  Provider,
} from '../../providers/provider';
import { Reconciler, type ReconcilerDeps } from './reconciler';

const INSTALL = 'inst';
const PREFIX = labelPrefix(INSTALL);
const T0 = 1_000_000_000;
const GRACE_MS = 2 * 60_000; // the reconciler's visibility grace for a young lease

const label = (name: string) => `${PREFIX}${name}`;

function factsOf(provider: string, lbl: string): LeaseFacts {
  const leaseId = `${provider}:${lbl}`;
  return {
    provider,
    leaseId,
    contractId: lbl,
    label: lbl,
    destroyHandle: { provider, leaseId, contractId: lbl },
    pricePerHour: null,
    metadata: {},
  };
}

/** A provider whose listing and gone-answers the test sets, counting each call. */
class FakeProvider implements Provider {
  listed: LeaseFacts[] = [];
  gone = true;
  listError: Error | null = null;
  configured = true;
  /** While set, listLabeled waits for it (a listing in flight). */
  gate: Promise<void> | null = null;
  listCalls = 0;
  isGoneCalls = 0;
  readonly prefixesAsked: string[] = [];

  constructor(
    readonly kind: string,
    readonly bills = false,
  ) {}

  isConfigured(): boolean {
    return this.configured;
  }

  list(...names: string[]): this {
    this.listed = names.map((n) => factsOf(this.kind, label(n)));
    return this;
  }

  async listLabeled(prefix: string): Promise<LeaseFacts[]> {
    this.listCalls++;
    this.prefixesAsked.push(prefix);
    if (this.gate) await this.gate;
    if (this.listError) throw this.listError;
    return this.listed.map((f) => ({ ...f }));
  }

  async isGone(_handle: DestroyHandle): Promise<boolean> {
    this.isGoneCalls++;
    return this.gone;
  }

  shapeNodes(_pool: PoolSpec): NodeShape[] {
    throw new Error('not used by the reconciler');
  }
  async createLease(): Promise<CreateLeaseResult> {
    throw new Error('not used by the reconciler');
  }
  async lookupEndpoint(): Promise<NodeEndpoint | null> {
    throw new Error('not used by the reconciler');
  }
  async destroyLease(): Promise<void> {
    throw new Error('not used by the reconciler');
  }
}

/** The slice of the ledger the reconciler reads and appends to, in memory. */
class MemoryLedger implements Pick<Ledger, 'installId' | 'listLeases' | 'getNode' | 'append'> {
  readonly leases: LeaseRow[] = [];
  readonly nodes = new Map<string, NodeRecord>();
  readonly journal: Omit<JournalEvent, 'seq'>[] = [];

  installId(): string {
    return INSTALL;
  }
  listLeases(states?: readonly LeaseState[]): LeaseRow[] {
    return this.leases.filter((l) => !states || states.includes(l.state));
  }
  getNode(id: string): NodeRecord | undefined {
    return this.nodes.get(id);
  }
  append(e: Omit<JournalEvent, 'seq'>): void {
    this.journal.push(e);
  }

  /** A lease row; with `node`, also the node that owns it (holding the lease's facts). */
  add(
    provider: string,
    name: string,
    state: LeaseState,
    opts: { node?: boolean; createdAt?: number | null } = {},
  ): string {
    const lbl = label(name);
    const nodeId = opts.node ? `r-${name}/node-0` : null;
    this.leases.push({
      label: lbl,
      leaseId: state === 'requested' ? null : `${provider}:${lbl}`,
      provider,
      runId: nodeId ? `r-${name}` : null,
      nodeId,
      state,
      destroyHandle: null,
      pricePerHour: null,
      requestedAt: T0,
      createdAt: opts.createdAt === undefined ? T0 : opts.createdAt,
      destroyedAt: null,
      destroyAttempts: 0,
      lastError: null,
      reason: null,
      deadMan: null,
    });
    if (nodeId) {
      const rec = newNodeRecord({
        runId: `r-${name}`,
        logicalId: 'node-0',
        groupId: 'g',
        role: 'worker',
        label: lbl,
        desired: { provider, shape: {}, verify: [], hostKey: 'hk1_test' },
        now: T0,
      });
      this.nodes.set(nodeId, {
        ...rec,
        stage: state === 'requested' ? 'lease_requested' : 'dormant',
        lease: state === 'requested' ? null : factsOf(provider, lbl),
      });
    }
    return lbl;
  }
}

interface Delivered {
  nodeId: string;
  provider: string;
  msg: NodeMsg;
}

function setup(providers: FakeProvider[], opts: { canWrite?: boolean } = {}) {
  const clock = { t: T0 };
  const ledger = new MemoryLedger();
  const delivered: Delivered[] = [];
  const deps: ReconcilerDeps = {
    ledger,
    providers: { all: () => providers },
    now: () => clock.t,
    everyMs: 30_000,
    canWrite: opts.canWrite ?? true,
    deliver: (nodeId, provider, msg) => delivered.push({ nodeId, provider: provider.kind, msg }),
  };
  return { reconciler: new Reconciler(deps), ledger, clock, delivered };
}

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
