import { KeyedClient, readPublicKey } from '../http/keyed-client';
import type { SelfTeardown } from '../../../src-agent/wire/protocol';
import type { PoolSpec } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { OfferFilter, type Offer, type OfferFilterInput } from '../../contract/offer';
import { parseConstraint } from '../../contract/constraint';
import { filterOffers } from './offer-constraints';
import { countedShapes, type NodeShape } from '../pool-shapes';
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
import { DEFAULT_VASTAI_URL, VastApiClient, type VastApiOptions } from './api-client';
import { createBody, DEFAULT_IMAGE } from './create-body';
import { bidFacts, changeLeaseBid, NOT_A_BID, notABid, withBidIntent } from './bid-lease';
import { perHour, planBids } from './bids';
import { conditionOf } from './interruption';
import { peerOf, sshAddressOf, sshEndpoint } from './endpoint';
import { sameLocationFirst } from './gang-placement';
import { isOfferTaken } from './errors';
import { failedMachineIds, recordFailedHost } from './failed-hosts';
import { buildOfferQuery, effectiveDiskGb } from './filters';
import {
  factsFromCreate,
  factsFromInstance,
  instanceIdOf,
  PROVIDER,
  SAFE_LABEL,
  tenderLabelOf,
} from './lease-facts';
import { selectOffers } from './offers';
import { filterOfShape, parseShape, type VastShape } from './shape';
import { classifyInstance, isGoneInstance } from './status';
import { loginMetadata, pullRefused, pullRefusalIn, resolveLogin } from '../image-login';
import { vastLoginString } from './image-login';
import { checkInstanceImage, instanceImage, type InspectImage } from './instance-image';

export { DEFAULT_IMAGE } from './create-body';

const MAX_OFFERS_TRIED = 5; // offers rented away under us before we give the run an answer
// Vast.ai may take a moment to show a new instance; until then "no such instance" is "not yet".
const YOUNG_LEASE_MS = 120_000;

export interface VastProviderOptions {
  /** `TENDER_VASTAI_URL`; default https://console.vast.ai. */
  baseUrl?: string;
  /** `TENDER_VASTAI_API_KEY` (a function when it can change: Settings); empty: not configured. */
  apiKey: string | (() => string);
  /** Tender's SSH public key (OpenSSH one-line form), read when first needed. */
  publicKey: () => string;
  /** `<TENDER_HOME>/vastai-failed-hosts.json`; without it no host is remembered. */
  failedHostsPath?: string;
  defaultImage?: string;
  /** The login name for `user` (root) on an instance. A seam for the fake in test/fakes/vast,
   *  whose nodes are throw-away users, one per instance. */
  sshUser?: (instanceId: string, user: string) => string;
  /** Asks an image's registry what it is before renting for it (instance-image.ts). */
  inspectImage?: InspectImage;
  /** Where a node finds its own CONTAINER_ID and CONTAINER_API_KEY when its process
   *  environment lacks them: PID 1's environment on Vast.ai. A seam for the fake, which
   *  writes them to ~/.vast-env. */
  containerEnvFiles?: string[];
  now?: () => number;
  /** Test seams and tuning of the HTTP layer. */
  http?: Omit<VastApiOptions, 'baseUrl' | 'apiKey'>;
}

/** Vast.ai: rents a marketplace machine per lease. A lease is a Vast.ai instance labelled
 *  with Tender's label (and carrying it as TENDER_LABEL in its env); its id is the instance
 *  (contract) id. This adapter never polls and never waits: the orchestrator calls
 *  lookupEndpoint until SSH is known and isGone until a destroy is confirmed. */
export class VastProvider implements Provider {
  readonly kind = PROVIDER;
  readonly replacesFailedBoots = true;
  readonly bills = true;
  private readonly api: KeyedClient<VastApiClient>;
  private keyOnAccount: string | null = null;
  /** Offers a create in this process is taking right now. */
  private readonly claimed = new Set<string>();
  private claimWaiters: (() => void)[] = [];

  private claimSettled(): Promise<void> {
    return new Promise((resolve) => this.claimWaiters.push(resolve));
  }

  private settleClaims(): void {
    const waiters = this.claimWaiters;
    this.claimWaiters = [];
    for (const w of waiters) w();
  }
  private readonly now: () => number;

  constructor(private readonly opts: VastProviderOptions) {
    this.now = opts.now ?? Date.now;
    this.api = new KeyedClient(
      opts.apiKey,
      (apiKey) =>
        new VastApiClient({ ...opts.http, baseUrl: opts.baseUrl || DEFAULT_VASTAI_URL, apiKey }),
      { name: 'Vast.ai', onChange: () => (this.keyOnAccount = null) },
    );
  }

  isConfigured(): boolean {
    return this.api.isConfigured();
  }

  async searchOffers(filter: OfferFilterInput, signal: AbortSignal): Promise<Offer[]> {
    const f = OfferFilter.parse(filter);
    const excluded =
      f.includeFailedHosts || !this.opts.failedHostsPath
        ? new Set<string>()
        : failedMachineIds(this.opts.failedHostsPath);
    return this.search(f, excluded, signal);
  }

  /** One node per count or per offer picked, each searching with the pool's fields. */
  shapeNodes(pool: PoolSpec): NodeShape[] {
    return countedShapes(this.kind, pool);
  }

  async createLease(req: CreateLeaseRequest, signal: AbortSignal): Promise<CreateLeaseResult> {
    const label = checkLabel(req.label);
    const shape = parseShape(req.shape);
    const api = this.client();
    // A lease is created once per label, whoever asks twice (a retry after a crash, a
    // replayed effect): an instance that already carries the label is that lease.
    const existing = await this.findLabel(label, signal);
    if (existing)
      return { lease: shape.interruptible ? withBidIntent(existing) : existing, endpoint: null };

    const image = shape.image ?? this.opts.defaultImage ?? DEFAULT_IMAGE;
    // The registry's password, read now and sent only in the create's body.
    const login = resolveLogin(shape.image_login, image, req);
    const imageLogin = login ? { image_login: vastLoginString(login) } : {};
    const publicKey = this.publicKey();
    await this.ensureKeyOnAccount(publicKey, signal);
    const filter = filterOfShape(shape);
    const excluded = this.excludedFor(shape);
    let offers = await this.search(filter, excluded, signal);
    // Every match is being taken by another create of this process: wait for one of those to
    // settle (rented: gone from the market; refused: free again), then look again.
    while (offers.length > 0 && offers.every((o) => this.claimed.has(o.offerId))) {
      await this.claimSettled();
      offers = await this.search(filter, excluded, signal);
    }
    // Interruptible: each offer with the bid it gets, and only offers the bid can run on.
    const plan = shape.interruptible ? planBids(offers, shape.bid) : null;
    if (plan?.kind === 'refused')
      throw new ProviderError(plan.message, { fatal: true, hint: plan.hint });
    const bids = new Map(plan?.bids.map((b) => [b.offer.offerId, b.bid]));
    if (plan) offers = offers.filter((o) => bids.has(o.offerId));
    const met = filterOffers(offers, (req.constraints ?? []).map(parseConstraint));
    if (met.emptiedBy)
      throw new ProviderError(
        `no Vast.ai offer of this pool meets the constraint ${JSON.stringify(met.emptiedBy.text)}`,
        {
          fatal: true,
          hint: `loosen that constraint, or widen the pool (gpu, gpu_count, max_price); \`tender offers\` shows what is there`,
        },
      );
    offers = met.offers;
    if (offers.length === 0)
      throw new ProviderError('no Vast.ai offer matches this pool', {
        hint: 'loosen max_price, min_vram_gb, gpu or min_reliability; `tender offers` shows what is there',
      });
    offers = await instanceImage(image, offers, this.opts, req.note, signal, login);
    const disk = effectiveDiskGb(filter.diskGb);
    const taken: string[] = [];
    // Several nodes of a run are created at once from the same search: each skips the
    // offers the others are taking, instead of all racing for the cheapest one.
    // An offer picked by hand goes first, while it is still on the market.
    // A distributed run's nodes (ports their peers reach) go to one location where they can:
    // each node's create sees the same search, so each puts the same location first.
    if (req.openPorts?.length) offers = sameLocationFirst(offers);
    const picked = offers.find((o) => o.offerId === shape.offerId);
    const candidates = [...(picked ? [picked] : []), ...offers.filter((o) => o !== picked)]
      .filter((o) => !this.claimed.has(o.offerId))
      .slice(0, MAX_OFFERS_TRIED);
    for (const offer of candidates) {
      if (this.claimed.has(offer.offerId)) continue;
      this.claimed.add(offer.offerId);
      let instanceId: string;
      try {
        instanceId = await api.createInstance(
          offer.offerId,
          {
            ...createBody(label, image, disk, bids.get(offer.offerId), req.openPorts),
            ...imageLogin,
          },
          signal,
        );
      } catch (err) {
        if (isOfferTaken(err)) {
          taken.push(offer.offerId);
          continue;
        }
        throw err; // outcomeUnknown included: the orchestrator looks the label up first
      } finally {
        this.claimed.delete(offer.offerId);
        this.settleClaims();
      }
      const attach = await api.attachSshKey(instanceId, publicKey, signal).then(
        () => 'ok',
        // The account key reaches new instances too; this is the second way in, not the only.
        (e: unknown) => `failed: ${(e as Error).message}`.slice(0, 200),
      );
      const lease = factsFromCreate(instanceId, label, offer, {
        image,
        disk_gb: String(disk),
        created_at: String(this.now()),
        ssh_key_attach: attach,
        ...loginMetadata(shape.image_login, image),
      });
      const bid = bids.get(offer.offerId);
      return { lease: bid === undefined ? lease : bidFacts(lease, offer, bid), endpoint: null };
    }
    throw new ProviderError(
      `every offer tried was rented by someone else first (offers ${taken.join(', ') || 'none left to try'})`,
      { hint: 'the market moves fast at this price; try again, or raise max_price' },
    );
  }

  async lookupEndpoint(
    lease: LeaseFacts,
    signal: AbortSignal,
    report?: LeaseReporter,
  ): Promise<NodeEndpoint | null> {
    const id = this.instanceId(lease.destroyHandle);
    const inst = await this.client().showInstance(id, signal);
    // Checked at the first look after create, before anything runs on it.
    if (inst && lease.metadata.interruptible === 'true' && inst.is_bid !== true) throw notABid(id);
    const state = classifyInstance(inst);
    switch (state.kind) {
      case 'gone': {
        const createdAt = Number(lease.metadata.created_at);
        if (Number.isFinite(createdAt) && this.now() - createdAt < YOUNG_LEASE_MS) return null;
        throw new ProviderError(`Vast.ai instance ${id}: the instance is gone`, { fatal: true });
      }
      case 'failed':
        // A registry that refused the pull: the login (or its lack) named, failing the run
        // at once — another host would be refused too.
        if (pullRefusalIn(inst?.status_msg))
          throw pullRefused(lease.metadata, pullRefusalIn(inst?.status_msg)!);
        throw new ProviderError(`Vast.ai instance ${id}: ${outbidReason(inst) ?? state.reason}`, {
          fatal: true,
          hint: 'destroy it: it may still bill until then',
        });
      case 'starting':
        report?.(state.detail, state.isImagePull);
        return null;
      case 'running': {
        const addr = inst ? sshAddressOf(inst) : null;
        if (!addr) return null;
        const endpoint = sshEndpoint(addr, lease.label, this.opts.sshUser?.(id, 'root') ?? 'root');
        const peer = inst ? peerOf(inst) : null;
        return peer && endpoint.kind === 'ssh' ? { ...endpoint, peer } : endpoint;
      }
    }
  }

  async destroyLease(handle: DestroyHandle, signal: AbortSignal): Promise<void> {
    // 'gone' and 'destroyed' are both success; anything else throws and is retried.
    await this.client().destroyInstance(this.instanceId(handle), signal);
  }

  async isGone(handle: DestroyHandle, signal: AbortSignal): Promise<boolean> {
    return isGoneInstance(await this.client().showInstance(this.instanceId(handle), signal));
  }

  async listLabeled(prefix: string, signal: AbortSignal): Promise<LeaseFacts[]> {
    if (!SAFE_LABEL.test(prefix))
      throw new ProviderError(`bad label prefix "${prefix}"`, { fatal: true });
    const found: LeaseFacts[] = [];
    for (const inst of await this.client().listInstances(signal)) {
      if (isGoneInstance(inst)) continue;
      const label = tenderLabelOf(inst, prefix);
      const facts = label ? factsFromInstance(inst, label) : null;
      if (facts) found.push(facts);
    }
    return found.sort(
      (a, b) =>
        a.label.localeCompare(b.label) ||
        a.contractId.localeCompare(b.contractId, 'en', { numeric: true }),
    );
  }

  /** Judged before the run is written: an image that can run nowhere (instance-image.ts); a
   *  bid above the on-demand price of the offer it would go to, or below every minimum. A
   *  market that cannot be asked now is the create's to report. */
  async checkPool(pool: PoolSpec, signal: AbortSignal): Promise<void> {
    const shape = parseShape(this.shapeNodes(pool)[0] ?? {});
    await checkInstanceImage(shape, this.opts, signal);
    if (pool.interruptible !== true || pool.bid === undefined) return;
    let offers: Offer[];
    try {
      offers = await this.search(filterOfShape(shape), this.excludedFor(shape), signal);
    } catch {
      return;
    }
    const plan = planBids(offers, shape.bid);
    if (plan.kind === 'refused') throw new TenderError('bad_input', plan.message, plan.hint);
  }

  changeBid(lease: LeaseFacts, bid: number, signal: AbortSignal): Promise<BidChange> {
    return changeLeaseBid(this.client(), lease, bid, signal);
  }

  startLease(lease: LeaseFacts, signal: AbortSignal): Promise<void> {
    return this.client().startInstance(lease.contractId, signal);
  }

  /** The node destroys its own instance with the per-instance key every Vast.ai container
   *  has (CONTAINER_API_KEY, valid for that instance only); the account key stays here. */
  selfTeardown(): SelfTeardown {
    return {
      kind: 'vastai',
      apiUrl: this.opts.baseUrl || DEFAULT_VASTAI_URL,
      envFiles: this.opts.containerEnvFiles ?? ['/proc/1/environ'],
    };
  }

  rememberBootFailure(lease: LeaseFacts, reason: string): void {
    const machine = lease.metadata.machine_id;
    if (!this.opts.failedHostsPath || !machine || !/^\d+$/.test(machine)) return;
    if (reason.includes(NOT_A_BID)) return; // the market's doing, not the host's
    recordFailedHost(this.opts.failedHostsPath, machine, reason, this.now());
  }

  /** Hosts a create leaves out: those the shape names and those that failed to boot. */
  private excludedFor(shape: VastShape): Set<string> {
    const excluded = new Set(shape.excludeMachines ?? []);
    if (this.opts.failedHostsPath)
      for (const id of failedMachineIds(this.opts.failedHostsPath)) excluded.add(id);
    return excluded;
  }

  private async search(
    filter: OfferFilter,
    excluded: ReadonlySet<string>,
    signal: AbortSignal,
  ): Promise<Offer[]> {
    const rows = await this.client().searchOffers(buildOfferQuery(filter, excluded.size), signal);
    return selectOffers(rows, filter, excluded);
  }

  /** The lease already labelled `label`, if any (the lowest id when there are several: the
   *  others stay listed by listLabeled, so reconciliation still sees them). */
  private async findLabel(label: string, signal: AbortSignal): Promise<LeaseFacts | null> {
    const listed = await this.listLabeled(label, signal);
    return listed.find((l) => l.label === label) ?? null;
  }

  private async ensureKeyOnAccount(publicKey: string, signal: AbortSignal): Promise<void> {
    if (this.keyOnAccount === publicKey) return;
    const api = this.client();
    const want = keyBody(publicKey);
    const keys = await api.listSshKeys(signal);
    if (!keys.some((k) => keyBody(k) === want)) await api.addSshKey(publicKey, signal);
    this.keyOnAccount = publicKey;
  }

  private publicKey(): string {
    return readPublicKey(this.opts.publicKey);
  }

  private instanceId(handle: DestroyHandle): string {
    const id = instanceIdOf(handle);
    if (!id) throw new ProviderError(`bad vastai lease handle ${handle.leaseId}`, { fatal: true });
    return id;
  }

  private client(): VastApiClient {
    return this.api.get();
  }
}

/** Key type and base64, without the comment: how two copies of one key compare. */
function keyBody(key: string): string {
  return key.trim().split(/\s+/).slice(0, 2).join(' ');
}

function checkLabel(label: string): string {
  if (!SAFE_LABEL.test(label))
    throw new ProviderError(`bad lease label "${label}"`, { fatal: true });
  return label;
}

/** "outbid before it ran" for a stopped bid instance whose bid is below the minimum. */
function outbidReason(inst: Record<string, unknown> | null): string | null {
  const c = inst ? conditionOf(inst) : undefined;
  if (c?.state !== 'outbid' || c.bid === undefined || c.minBid === undefined) return null;
  return `the instance was outbid before it ran (bid ${perHour(c.bid)}, now min ${perHour(c.minBid)})`;
}
