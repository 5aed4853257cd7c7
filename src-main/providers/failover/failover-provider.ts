// A pool naming several marketplaces (chain.ts): one provider to the orchestrator, which
// rents from the first member that can, and routes everything about a lease afterwards to
// the member that made it (each lease names its own provider). On no capacity or a failed
// create the next member is tried, each attempt written to the node's log (the ledger) as
// it starts and as it ends; a create whose outcome is unknown is never followed by one
// elsewhere — the caller looks the label up first — so a node never has two leases.
import type { SelfTeardown } from '../../../src-agent/wire/protocol';
import type { OfferFilter, PoolSpec } from '../../contract';
import { OfferFilter as OfferFilterSchema } from '../../contract/offer';
import { TenderError } from '../../base/tender-error';
import type { NodeShape } from '../pool-shapes';
import {
  ProviderError,
  type BidChange,
  type CreateLeaseRequest,
  type CreateLeaseResult,
  type DestroyHandle,
  type LeaseFacts,
  type LeaseReporter,
  type NodeEndpoint,
  type Provider,
} from '../provider';
import { CHEAPEST } from './chain';

/** One member's part of a node's shape. */
interface MemberShape {
  provider: string;
  shape: NodeShape;
}

/** The shape of a node of a chained pool: what each member would rent, in order, and for
 *  `cheapest` the search that orders them at create time. */
interface ChainShape {
  chain: MemberShape[];
  cheapest?: OfferFilter;
}

/** A search that orders `cheapest` members gets this long; a member that does not answer
 *  goes last rather than holding the create. */
const ORDER_SEARCH_MS = 30_000;

export class FailoverProvider implements Provider {
  readonly replacesFailedBoots = true;
  readonly bills = true;
  /** `members`: the providers, in order (for `cheapest`, the marketplaces this build has);
   *  `member`: the registry's provider of a kind. */
  constructor(
    readonly kind: string,
    private readonly members: readonly string[],
    private readonly member: (kind: string) => Provider,
  ) {}

  isConfigured(): boolean {
    return this.members.some((k) => this.isUsable(this.member(k)));
  }

  private isUsable(p: Provider): boolean {
    return !p.isConfigured || p.isConfigured();
  }

  /** Each member's shapes for the pool; members that cannot honour it are left out (Lambda
   *  sells no interruptible machines), and when none can, the first one's reason is the
   *  answer. `cheapest` leaves out the members not configured. */
  shapeNodes(pool: PoolSpec): NodeShape[] {
    if (pool.offers.length > 0)
      throw new TenderError(
        'bad_input',
        `offers picked by hand belong to one provider, not to "${this.kind}"`,
        'name the provider of the picked offers alone, or leave the offers out',
      );
    const per: { provider: string; shapes: NodeShape[] }[] = [];
    let firstError: unknown = null;
    for (const k of this.members) {
      const p = this.member(k);
      if (this.kind === CHEAPEST && !this.isUsable(p)) continue;
      try {
        per.push({ provider: k, shapes: p.shapeNodes({ ...pool, provider: k }) });
      } catch (err) {
        firstError ??= err;
      }
    }
    if (per.length === 0) {
      if (firstError) throw firstError;
      throw new TenderError(
        'bad_input',
        'no marketplace is configured for provider = "cheapest"',
        'set an API key: TENDER_VASTAI_API_KEY, TENDER_RUNPOD_API_KEY or TENDER_LAMBDA_API_KEY (or in Settings)',
      );
    }
    const count = Math.max(...per.map((m) => m.shapes.length));
    const cheapest = this.kind === CHEAPEST ? filterOfPool(pool) : undefined;
    return Array.from({ length: count }, (_, i) => {
      const shape: ChainShape = {
        chain: per
          .filter((m) => m.shapes[i] !== undefined)
          .map((m) => ({ provider: m.provider, shape: m.shapes[i]! })),
        ...(cheapest ? { cheapest } : {}),
      };
      return shape as unknown as NodeShape;
    });
  }

  async searchOffers(filter: OfferFilter, signal: AbortSignal) {
    const all = await Promise.all(
      this.members.map(async (k) => {
        const p = this.member(k);
        if (!p.searchOffers || !this.isUsable(p)) return [];
        return p.searchOffers(filter, signal).catch(() => []);
      }),
    );
    return all.flat().sort((a, b) => a.pricePerHour - b.pricePerHour);
  }

  async checkPool(pool: PoolSpec, signal: AbortSignal): Promise<void> {
    // Every member that can take the pool is asked; only when none accepts it is it refused.
    let firstError: unknown = null;
    for (const k of this.members) {
      const p = this.member(k);
      if (!this.isUsable(p)) continue;
      try {
        p.shapeNodes({ ...pool, provider: k });
        await p.checkPool?.({ ...pool, provider: k }, signal);
        return;
      } catch (err) {
        firstError ??= err;
      }
    }
    if (firstError) throw firstError;
  }

  async createLease(req: CreateLeaseRequest, signal: AbortSignal): Promise<CreateLeaseResult> {
    const { chain, cheapest } = chainShape(req.shape);
    const note = req.note ?? (() => {});
    // A create resumed after a crash may have rented from any member: look there first.
    const found = await this.findAcross(req.label, chain, signal, req.resumed === true);
    if (found) return { lease: found, endpoint: null };
    const order = cheapest ? await this.byPrice(chain, cheapest, signal, note) : chain;
    const tried: string[] = [];
    let isAllNoCapacity = true;
    for (const [i, m] of order.entries()) {
      const p = this.member(m.provider);
      if (!this.isUsable(p)) {
        tried.push(`${m.provider}: not configured`);
        continue;
      }
      note(`renting on ${m.provider}${i > 0 ? ` (${tried.at(-1) ?? ''})` : ''}`);
      try {
        const result = await p.createLease({ ...req, shape: m.shape }, signal);
        if (tried.length > 0)
          result.lease.metadata = { ...result.lease.metadata, failover: tried.join('; ') };
        note(`rented ${result.lease.leaseId} on ${m.provider}`);
        return result;
      } catch (err) {
        // Maybe made anyway: renting elsewhere now could make a second lease for the node.
        if (err instanceof ProviderError && err.opts.outcomeUnknown) throw err;
        if (!(err instanceof ProviderError && err.opts.noCapacity)) isAllNoCapacity = false;
        const why = (err as Error).message;
        tried.push(`${m.provider}: ${why}`);
        note(`${m.provider} could not rent: ${why}`);
      }
    }
    throw new ProviderError(`no provider of "${this.kind}" could rent: ${tried.join('; ')}`, {
      noCapacity: isAllNoCapacity,
      hint: 'loosen the pool (--max-price, --gpu), or add a provider to the list',
    });
  }

  /** The label's lease on any member. Outside a resume a member that cannot be asked is
   *  passed over (nothing can have been made there yet); in one, it is an error, since a
   *  lease it made before the crash would be rented a second time elsewhere. */
  private async findAcross(
    label: string,
    chain: MemberShape[],
    signal: AbortSignal,
    isResumed: boolean,
  ): Promise<LeaseFacts | null> {
    if (!isResumed) return null;
    const looks = await Promise.allSettled(
      chain.map(async (m) => {
        const p = this.member(m.provider);
        if (!this.isUsable(p)) return null;
        const listed = await p.listLabeled(label, signal);
        return listed.find((l) => l.label === label) ?? null;
      }),
    );
    for (const look of looks) if (look.status === 'fulfilled' && look.value) return look.value;
    const failed = looks.findIndex((l) => l.status === 'rejected');
    if (failed >= 0) {
      const err = (looks[failed] as PromiseRejectedResult).reason as Error;
      throw new ProviderError(
        `cannot tell whether ${chain[failed]!.provider} made lease ${label} before the restart (${err.message}); not renting it elsewhere`,
      );
    }
    return null;
  }

  /** `cheapest`: members by their cheapest matching offer now; one with none, or that
   *  does not answer, goes last in its place (its create says why). */
  private async byPrice(
    chain: MemberShape[],
    filter: OfferFilter,
    signal: AbortSignal,
    note: (line: string) => void,
  ): Promise<MemberShape[]> {
    const search = AbortSignal.any([signal, AbortSignal.timeout(ORDER_SEARCH_MS)]);
    const priced = await Promise.all(
      chain.map(async (m, i) => {
        const p = this.member(m.provider);
        if (!p.searchOffers || !this.isUsable(p)) return { m, i, price: Infinity };
        const offers = await p.searchOffers(filter, search).catch(() => []);
        const price =
          offers[0]?.[filter.interruptible ? 'interruptiblePricePerHour' : 'pricePerHour'];
        return { m, i, price: price ?? Infinity };
      }),
    );
    priced.sort((a, b) => a.price - b.price || a.i - b.i);
    note(
      `cheapest first: ${priced.map((x) => `${x.m.provider} ${Number.isFinite(x.price) ? `$${x.price.toFixed(3)}/h` : '(no offer)'}`).join(', ')}`,
    );
    return priced.map((x) => x.m);
  }

  // Everything about a lease goes to the member that made it.

  lookupEndpoint(
    lease: LeaseFacts,
    signal: AbortSignal,
    report?: LeaseReporter,
  ): Promise<NodeEndpoint | null> {
    return this.member(lease.provider).lookupEndpoint(lease, signal, report);
  }

  destroyLease(handle: DestroyHandle, signal: AbortSignal): Promise<void | 'gone'> {
    return this.member(handle.provider).destroyLease(handle, signal);
  }

  armDestroy(handle: DestroyHandle): void {
    this.member(handle.provider).armDestroy?.(handle);
  }

  isGone(handle: DestroyHandle, signal: AbortSignal): Promise<boolean> {
    return this.member(handle.provider).isGone(handle, signal);
  }

  /** Every member's leases under `prefix`; a member that does not answer fails the whole
   *  look only when no member found anything (absent is no proof). */
  async listLabeled(prefix: string, signal: AbortSignal): Promise<LeaseFacts[]> {
    const looks = await Promise.allSettled(
      this.members.map(async (k) => {
        const p = this.member(k);
        return this.isUsable(p) ? p.listLabeled(prefix, signal) : [];
      }),
    );
    const facts = looks.flatMap((l) => (l.status === 'fulfilled' ? l.value : []));
    const failed = looks.find((l) => l.status === 'rejected');
    if (failed && facts.length === 0) throw (failed as PromiseRejectedResult).reason;
    return facts;
  }

  selfTeardown(lease: LeaseFacts): SelfTeardown {
    return this.member(lease.provider).selfTeardown?.(lease) ?? { kind: 'remove-files' };
  }

  rememberBootFailure(lease: LeaseFacts, reason: string): void {
    this.member(lease.provider).rememberBootFailure?.(lease, reason);
  }

  async whyGone(lease: LeaseFacts, signal: AbortSignal) {
    const p = this.member(lease.provider);
    if (!p.whyGone)
      return { words: 'the provider no longer lists it', cause: 'node_lost' as const };
    return p.whyGone(lease, signal);
  }

  changeBid(lease: LeaseFacts, bid: number, signal: AbortSignal): Promise<BidChange> {
    const p = this.member(lease.provider);
    if (!p.changeBid)
      throw new TenderError(
        'bad_input',
        `${lease.leaseId} takes no bid`,
        'only interruptible leases on a marketplace that takes bids do',
      );
    return p.changeBid(lease, bid, signal);
  }

  async startLease(lease: LeaseFacts, signal: AbortSignal): Promise<void> {
    const p = this.member(lease.provider);
    if (!p.startLease) throw new ProviderError(`${lease.provider} cannot start a stopped lease`);
    return p.startLease(lease, signal);
  }
}

function chainShape(shape: NodeShape): ChainShape {
  const s = shape as Partial<ChainShape>;
  if (!Array.isArray(s.chain) || s.chain.length === 0)
    throw new ProviderError('bad node shape for a provider list: no members', { fatal: true });
  return s as ChainShape;
}

/** The offer search a pool's marketplace fields mean, as every marketplace reads it. */
export function filterOfPool(pool: PoolSpec): OfferFilter {
  return OfferFilterSchema.parse({
    gpu: pool.gpu,
    gpuCount: pool.gpu_count,
    minVramGb: pool.min_vram_gb,
    maxPrice: pool.max_price,
    diskGb: pool.disk_gb,
    region: pool.region,
    interruptible: pool.interruptible === true ? true : undefined,
    limit: 4,
  });
}
