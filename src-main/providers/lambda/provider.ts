import { KeyedClient, readPublicKey } from '../http/keyed-client';
import type { Offer, OfferFilterInput, PoolSpec } from '../../contract';
import { OfferFilter } from '../../contract';
import type { NodeShape } from '../pool-shapes';
import {
  ProviderError,
  type CreateLeaseRequest,
  type CreateLeaseResult,
  type DestroyHandle,
  type LeaseFacts,
  type NodeEndpoint,
  type Provider,
} from '../provider';
import { LambdaApiClient, type LambdaInstance } from './api-client';
import { DEFAULT_SSH_PORT, DEFAULT_SSH_USER, sshEndpoint } from './endpoint';
import { isNoCapacity } from './errors';
import {
  checkLabel,
  factsFromInstance,
  factsFromLaunch,
  instanceIdOf,
  PROVIDER,
  SAFE_LABEL,
} from './lease-facts';
import { offersOf, selectOffers, toOffer, type LambdaOffer } from './offers';
import type { RetryPolicy } from './retry';
import { filterOfShape, parseShape, shapeNodes } from './shape';
import { ensureKeyName } from './ssh-key';
import { classifyInstance, isEnding } from './status';

export const DEFAULT_LAMBDA_URL = 'https://cloud.lambda.ai';

/** A launch that is not visible yet right after it was accepted is not gone. */
const YOUNG_LEASE_MS = 2 * 60_000;
/** `unhealthy` this long (as this process saw it) is final: the spec does not say whether
 *  it recovers, and waiting on a VM that does not only bills. Shorter than the
 *  orchestrator's endpoint deadline would not help: a restart takes minutes. */
export const UNHEALTHY_GRACE_MS = 5 * 60_000;
/** Each launch attempt costs a 12 s slot of the launch limit: a few regions, then stop. */
const MAX_LAUNCH_TRIES = 6;

export interface LambdaProviderOptions {
  /** `TENDER_LAMBDA_URL`; default https://cloud.lambda.ai (paths under /api/v1). */
  baseUrl?: string;
  /** Read at each use, so a key set in the settings applies without a restart. */
  apiKey: string | (() => string);
  /** Tender's SSH public key, registered once on the account under a name of its own. */
  publicKey: () => string;
  now?: () => number;
  /** The SSH user of an instance (default `ubuntu`): a seam for the fake's throw-away users. */
  sshUser?: (instanceId: string) => string;
  /** The SSH port of an instance (default 22): a seam for the fake, whose nodes listen on
   *  127.0.0.1 at ports of their own. */
  sshPort?: (instanceId: string) => number;
  http?: { retry?: Partial<RetryPolicy>; requestTimeoutMs?: number; launchIntervalMs?: number };
}

/** Lambda Cloud: rents an on-demand VM per lease. A lease is an instance whose `name` is
 *  Tender's label; its id is the instance id. No stop state (no startLease), no bids, no
 *  per-instance credential (no selfTeardown: the node removes its files and the app
 *  terminates the instance; README "Self-teardown"). Never polls, never waits. */
export class LambdaProvider implements Provider {
  readonly kind = PROVIDER;
  readonly replacesFailedBoots = true;
  readonly bills = true;
  private readonly api: KeyedClient<LambdaApiClient>;
  private keyName: { publicKey: string; name: string } | null = null;
  /** When this process first saw each instance unhealthy. */
  private readonly unhealthySince = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly opts: LambdaProviderOptions) {
    this.now = opts.now ?? Date.now;
    this.api = new KeyedClient(
      opts.apiKey,
      (apiKey) =>
        new LambdaApiClient({ ...opts.http, baseUrl: opts.baseUrl || DEFAULT_LAMBDA_URL, apiKey }),
      // Another key may be another account: Tender's SSH key is registered there afresh.
      { name: 'Lambda Cloud', onChange: () => (this.keyName = null) },
    );
  }

  isConfigured(): boolean {
    return this.api.isConfigured();
  }

  shapeNodes(pool: PoolSpec): NodeShape[] {
    return shapeNodes(pool);
  }

  async searchOffers(filter: OfferFilterInput, signal: AbortSignal): Promise<Offer[]> {
    return (await this.search(OfferFilter.parse(filter), signal)).map(toOffer);
  }

  async createLease(req: CreateLeaseRequest, signal: AbortSignal): Promise<CreateLeaseResult> {
    const label = checkLabel(req.label);
    const shape = parseShape(req.shape);
    const api = this.client();
    // Once per label, whoever asks twice (a retry after an unknown outcome, a replayed
    // effect): an instance already named with the label is that lease.
    const existing = await this.findLabel(label, signal);
    if (existing) return { lease: existing, endpoint: null };

    const keyName = await this.ensureKey(signal);
    const offers = await this.search(filterOfShape(shape), signal);
    const picked = offers.find((o) => o.offerId === shape.offerId);
    const candidates = [...(picked ? [picked] : []), ...offers.filter((o) => o !== picked)].slice(
      0,
      MAX_LAUNCH_TRIES,
    );
    if (candidates.length === 0)
      throw new ProviderError('no Lambda Cloud instance type matching this pool has capacity now', {
        noCapacity: true,
        hint: 'loosen gpu, gpu_count, min_vram_gb, max_price or region, or try later; `tender offers --provider lambda` shows what is there',
      });
    const tried: string[] = [];
    for (const offer of candidates) {
      let id: string;
      try {
        id = await api.launch(
          {
            region_name: offer.region,
            instance_type_name: offer.instanceType,
            ssh_key_names: [keyName],
            quantity: 1,
            name: label,
          },
          signal,
        );
      } catch (err) {
        // Listed with capacity is no reservation (research §3.2): the next region or type.
        if (isNoCapacity(err)) {
          tried.push(offer.offerId);
          continue;
        }
        throw err; // outcomeUnknown included: the orchestrator looks the label up first
      }
      const lease = factsFromLaunch(id, label, offer, {
        ssh_key_name: keyName,
        created_at: String(this.now()),
      });
      return { lease, endpoint: null };
    }
    throw new ProviderError(
      `Lambda Cloud has no capacity for this pool now (tried ${tried.join(', ')})`,
      { noCapacity: true, hint: 'try another region or instance type, or later' },
    );
  }

  async lookupEndpoint(
    lease: LeaseFacts,
    signal: AbortSignal,
    report?: (status: string) => void,
  ): Promise<NodeEndpoint | null> {
    const id = this.instanceId(lease.destroyHandle);
    const inst = await this.client().getInstance(id, signal);
    if (!inst) {
      const createdAt = Number(lease.metadata.created_at);
      if (Number.isFinite(createdAt) && this.now() - createdAt < YOUNG_LEASE_MS) return null;
      throw new ProviderError(`Lambda Cloud instance ${id} no longer exists`, { fatal: true });
    }
    const state = classifyInstance(inst);
    if (state.kind !== 'failed') this.unhealthySince.delete(id);
    switch (state.kind) {
      case 'gone':
        throw new ProviderError(`Lambda Cloud instance ${id} is ${state.status}`, { fatal: true });
      case 'failed': {
        const since = this.unhealthySince.get(id) ?? this.now();
        this.unhealthySince.set(id, since);
        if (this.now() - since < UNHEALTHY_GRACE_MS) return null;
        throw new ProviderError(
          `${state.reason} for ${Math.round((this.now() - since) / 60_000)} min`,
          { fatal: true, hint: 'it is terminated and replaced; it bills until then' },
        );
      }
      case 'starting':
        report?.(state.detail);
        return null;
      case 'running':
        return sshEndpoint(
          state.ip,
          this.opts.sshPort?.(id) ?? DEFAULT_SSH_PORT,
          lease.label,
          this.opts.sshUser?.(id) ?? DEFAULT_SSH_USER,
        );
    }
  }

  async destroyLease(handle: DestroyHandle, signal: AbortSignal): Promise<void> {
    // `global/object-does-not-exist` is success (api-client.ts); anything else throws.
    await this.client().terminate(this.instanceId(handle), signal);
  }

  async isGone(handle: DestroyHandle, signal: AbortSignal): Promise<boolean> {
    const inst = await this.client().getInstance(this.instanceId(handle), signal);
    return inst === null || inst.status === 'terminated';
  }

  async listLabeled(prefix: string, signal: AbortSignal): Promise<LeaseFacts[]> {
    if (!SAFE_LABEL.test(prefix))
      throw new ProviderError(`bad label prefix "${prefix}"`, { fatal: true });
    const found: LeaseFacts[] = [];
    for (const inst of await this.client().listInstances(signal)) {
      // Terminating or terminated: asked to end, nothing more to reconcile.
      if (isEnding(inst.status)) continue;
      const label = labelOf(inst, prefix);
      if (label) found.push(factsFromInstance(inst, label));
    }
    return found.sort(
      (a, b) => a.label.localeCompare(b.label) || a.contractId.localeCompare(b.contractId),
    );
  }

  private async search(filter: OfferFilter, signal: AbortSignal): Promise<LambdaOffer[]> {
    const entries = await this.client().instanceTypes(signal);
    const disk = new Map(
      entries.map((e) => [e.instance_type.name, e.instance_type.specs.storage_gib]),
    );
    return selectOffers(offersOf(entries), filter, (t) => disk.get(t) ?? 0);
  }

  /** The lease already named `label`, if any (the first by id when there are several: the
   *  others stay listed by listLabeled, so reconciliation still sees them). */
  private async findLabel(label: string, signal: AbortSignal): Promise<LeaseFacts | null> {
    const listed = await this.listLabeled(label, signal);
    return listed.find((l) => l.label === label) ?? null;
  }

  private async ensureKey(signal: AbortSignal): Promise<string> {
    const publicKey = this.publicKey();
    if (this.keyName?.publicKey === publicKey) return this.keyName.name;
    const name = await ensureKeyName(this.client(), publicKey, signal);
    this.keyName = { publicKey, name };
    return name;
  }

  private publicKey(): string {
    return readPublicKey(this.opts.publicKey);
  }

  private instanceId(handle: DestroyHandle): string {
    const id = instanceIdOf(handle);
    if (!id) throw new ProviderError(`bad lambda lease handle ${handle.leaseId}`, { fatal: true });
    return id;
  }

  private client(): LambdaApiClient {
    return this.api.get();
  }
}

/** The Tender label of an instance under `prefix`: its name. */
function labelOf(inst: LambdaInstance, prefix: string): string | null {
  const name = inst.name?.trim() ?? '';
  return name.startsWith(prefix) && SAFE_LABEL.test(name) ? name : null;
}
