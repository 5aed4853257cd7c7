// The FailoverProvider over scripted marketplaces (in memory: the members' own adapters are
// tested against their fakes; here only the order, the failover and the routing are).
import { describe, expect, it } from 'vitest';
import { PoolSpec, type Offer, type OfferFilter } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { countedShapes, type NodeShape } from '../pool-shapes';
import {
  ProviderError,
  type CreateLeaseRequest,
  type DestroyHandle,
  type LeaseFacts,
  type Provider,
} from '../provider';
import { ProviderRegistry } from '../registry';
import type { FailoverProvider } from './failover-provider';

/** A marketplace in memory: its price, whether it has capacity, the leases it made. */
class Market implements Provider {
  readonly bills = true;
  leases: LeaseFacts[] = [];
  creates = 0;
  destroyed: string[] = [];
  hasCapacity = true;
  configured = true;
  failNext: ProviderError | null = null;
  listError: Error | null = null;
  refuse: string | null = null;

  constructor(
    readonly kind: string,
    readonly price: number,
  ) {}

  isConfigured() {
    return this.configured;
  }
  shapeNodes(pool: PoolSpec): NodeShape[] {
    if (this.refuse && pool.interruptible)
      throw new TenderError('bad_input', this.refuse, 'leave interruptible out');
    return countedShapes(this.kind, pool).map((s) => ({ ...s, at: this.kind }));
  }
  async searchOffers(_f: OfferFilter): Promise<Offer[]> {
    if (!this.hasCapacity) return [];
    return [offer(this.kind, this.price)];
  }
  async createLease(req: CreateLeaseRequest) {
    this.creates++;
    expect(req.shape.at).toBe(this.kind); // each member gets its own shape
    if (this.failNext) {
      const e = this.failNext;
      this.failNext = null;
      throw e;
    }
    if (!this.hasCapacity)
      throw new ProviderError(`${this.kind}: no capacity`, { noCapacity: true });
    const id = `${this.leases.length + 1}`;
    const lease: LeaseFacts = {
      provider: this.kind,
      leaseId: `${this.kind}:${id}`,
      contractId: id,
      label: req.label,
      destroyHandle: { provider: this.kind, leaseId: `${this.kind}:${id}` },
      pricePerHour: this.price,
      metadata: {},
    };
    this.leases.push(lease);
    return { lease, endpoint: null };
  }
  async lookupEndpoint(lease: LeaseFacts) {
    expect(lease.provider).toBe(this.kind);
    return null;
  }
  async destroyLease(h: DestroyHandle) {
    this.destroyed.push(h.leaseId);
  }
  async isGone(h: DestroyHandle) {
    return this.destroyed.includes(h.leaseId);
  }
  async listLabeled(prefix: string) {
    if (this.listError) throw this.listError;
    return this.leases.filter((l) => l.label.startsWith(prefix));
  }
}

function offer(provider: string, price: number): Offer {
  return {
    provider,
    offerId: `${provider}-1`,
    machineId: '1',
    gpuName: 'RTX 4090',
    gpuCount: 1,
    vramGb: 24,
    gpuPricePerHour: price,
    storagePricePerHour: 0,
    pricePerHour: price,
    reliability: 1,
    verified: true,
    downMbps: 100,
    upMbps: 100,
    location: null,
    cudaMaxGood: null,
    dlperf: null,
    directPorts: 1,
  };
}

function setup() {
  const vast = new Market('vastai', 0.4);
  const runpod = new Market('runpod', 0.3);
  const lambda = new Market('lambda', 0.5);
  const registry = new ProviderRegistry([vast, runpod, lambda]);
  return { vast, runpod, lambda, registry };
}

const signal = new AbortController().signal;

async function rent(p: Provider, pool: Record<string, unknown>, label = 'tender-x-r1-node-0') {
  const notes: string[] = [];
  const shape = p.shapeNodes(PoolSpec.parse(pool))[0]!;
  const { lease } = await p.createLease(
    { label, runId: 'r1', logicalId: 'node-0', shape, note: (l) => notes.push(l) },
    signal,
  );
  return { lease, notes };
}

describe('FailoverProvider', () => {
  it('rents from the first member with capacity, and says why it passed the others over', async () => {
    const { registry, runpod, vast } = setup();
    runpod.hasCapacity = false;
    const p = registry.get('runpod,vastai');
    const { lease, notes } = await rent(p, { provider: ['runpod', 'vastai'], gpu: 'RTX 4090' });
    expect(lease.provider).toBe('vastai');
    expect(lease.metadata.failover).toBe('runpod: runpod: no capacity');
    expect(notes).toEqual([
      'renting on runpod',
      'runpod could not rent: runpod: no capacity',
      'renting on vastai (runpod: runpod: no capacity)',
      'rented vastai:1 on vastai',
    ]);
    expect([runpod.leases.length, vast.leases.length]).toEqual([0, 1]);
  });

  it('a failed create (not only no capacity) goes on to the next', async () => {
    const { registry, runpod, vast } = setup();
    runpod.failNext = new ProviderError('runpod said 400: bad image');
    const { lease } = await rent(registry.get('runpod,vastai'), { provider: 'runpod,vastai' });
    expect(lease.provider).toBe('vastai');
    expect(vast.creates).toBe(1);
  });

  it('never rents elsewhere after a create whose outcome is unknown', async () => {
    const { registry, runpod, vast } = setup();
    runpod.failNext = new ProviderError('timed out', { outcomeUnknown: true });
    await expect(
      rent(registry.get('runpod,vastai'), { provider: 'runpod,vastai' }),
    ).rejects.toThrow(/timed out/);
    expect(vast.creates).toBe(0);
  });

  it('no member can rent: one error naming every attempt; noCapacity only when all said so', async () => {
    const { registry, runpod, vast } = setup();
    runpod.hasCapacity = false;
    vast.hasCapacity = false;
    const err = await rent(registry.get('runpod,vastai'), { provider: 'runpod,vastai' }).catch(
      (e: ProviderError) => e,
    );
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toMatch(
      /no provider of "runpod,vastai" could rent: runpod: .*; vastai: /,
    );
    expect((err as ProviderError).opts.noCapacity).toBe(true);
  });

  it('cheapest: members ordered by their cheapest matching offer at create time', async () => {
    const { registry, runpod } = setup();
    const p = registry.get('cheapest');
    const first = await rent(p, { provider: 'cheapest' });
    expect(first.lease.provider).toBe('runpod'); // $0.30 < vast $0.40 < lambda $0.50
    expect(first.notes[0]).toBe(
      'cheapest first: runpod $0.300/h, vastai $0.400/h, lambda $0.500/h',
    );
    runpod.hasCapacity = false;
    const second = await rent(p, { provider: 'cheapest' }, 'tender-x-r1-node-1');
    expect(second.lease.provider).toBe('vastai');
  });

  it('cheapest leaves out members without a key, and refuses when none has one', async () => {
    const { registry, vast, runpod, lambda } = setup();
    runpod.configured = false;
    const { lease } = await rent(registry.get('cheapest'), { provider: 'cheapest' });
    expect(lease.provider).toBe('vastai');
    vast.configured = false;
    lambda.configured = false;
    expect(() =>
      registry.get('cheapest').shapeNodes(PoolSpec.parse({ provider: 'cheapest' })),
    ).toThrow(/no marketplace is configured/);
  });

  it('a member that cannot honour the pool is left out; none can: its reason', () => {
    const { registry, lambda, runpod } = setup();
    lambda.refuse = 'Lambda Cloud sells no interruptible instances';
    const shapes = registry
      .get('lambda,runpod')
      .shapeNodes(PoolSpec.parse({ provider: 'lambda,runpod', interruptible: true, count: 2 }));
    expect(shapes).toHaveLength(2);
    expect((shapes[0] as { chain: { provider: string }[] }).chain.map((m) => m.provider)).toEqual([
      'runpod',
    ]);
    runpod.refuse = 'no';
    expect(() =>
      registry
        .get('lambda,runpod')
        .shapeNodes(PoolSpec.parse({ provider: 'lambda,runpod', interruptible: true })),
    ).toThrow(/Lambda Cloud sells no interruptible/);
  });

  it('a resumed create finds the lease any member made before the crash', async () => {
    const { registry, runpod, vast } = setup();
    runpod.hasCapacity = false;
    const p = registry.get('runpod,vastai');
    const { lease } = await rent(p, { provider: 'runpod,vastai' });
    runpod.hasCapacity = true; // runpod has capacity now: a blind retry would rent twice
    const shape = p.shapeNodes(PoolSpec.parse({ provider: 'runpod,vastai' }))[0]!;
    const again = await p.createLease(
      { label: lease.label, runId: 'r1', logicalId: 'node-0', shape, resumed: true },
      signal,
    );
    expect(again.lease.leaseId).toBe(lease.leaseId);
    expect([runpod.creates, vast.creates]).toEqual([1, 1]);
    // A member that cannot be asked on a resume: no rent anywhere.
    runpod.listError = new Error('ECONNREFUSED');
    await expect(
      p.createLease(
        { label: 'tender-x-r1-node-9', runId: 'r1', logicalId: 'node-9', shape, resumed: true },
        signal,
      ),
    ).rejects.toThrow(/cannot tell whether runpod made lease .* not renting it elsewhere/);
  });

  it('routes lookups, destroys and listings to the member that made the lease', async () => {
    const { registry, runpod, vast } = setup();
    runpod.hasCapacity = false;
    const p = registry.get('runpod,vastai') as FailoverProvider;
    const { lease } = await rent(p, { provider: 'runpod,vastai' });
    await p.lookupEndpoint(lease, signal);
    await p.destroyLease(lease.destroyHandle, signal);
    expect(vast.destroyed).toEqual([lease.leaseId]);
    expect(await p.isGone(lease.destroyHandle, signal)).toBe(true);
    runpod.listError = new Error('down');
    expect((await p.listLabeled('tender-x-', signal)).map((l) => l.leaseId)).toEqual([
      lease.leaseId,
    ]);
  });

  it('offers picked by hand belong to one provider', () => {
    const { registry } = setup();
    expect(() =>
      registry
        .get('runpod,vastai')
        .shapeNodes(PoolSpec.parse({ provider: 'runpod,vastai', offers: ['1'] })),
    ).toThrow(/offers picked by hand belong to one provider/);
  });

  it('the registry refuses a chain it cannot make, naming why', () => {
    const { registry } = setup();
    expect(() => registry.get('runpod,nope')).toThrow(/unknown provider "nope"/);
    expect(registry.all().map((p) => p.kind)).toEqual(['vastai', 'runpod', 'lambda']);
  });

  it('a pool lists providers as a list or a comma string; both are one kind', () => {
    expect(PoolSpec.parse({ provider: ['runpod', 'vastai'] }).provider).toBe('runpod,vastai');
    expect(PoolSpec.parse({ provider: 'runpod,vastai' }).provider).toBe('runpod,vastai');
    expect(PoolSpec.parse({}).provider).toBe('local');
  });
});
