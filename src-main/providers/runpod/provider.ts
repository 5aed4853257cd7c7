import { KeyedClient, readPublicKey } from '../http/keyed-client';
import type { SelfTeardown } from '../../../src-agent/wire/protocol';
import type { PoolSpec } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { OfferFilter, type Offer, type OfferFilterInput } from '../../contract/offer';
import type { NodeShape } from '../pool-shapes';
import {
  ProviderError,
  type CreateLeaseRequest,
  type CreateLeaseResult,
  type DestroyHandle,
  type LeaseFacts,
  type LeaseReporter,
  type NodeEndpoint,
  type Provider,
} from '../provider';
import { DEFAULT_RUNPOD_URL, RunpodApiClient, type RunpodApiOptions } from './api-client';
import { RunpodApiError } from './errors';
import { bidRefusal, checkBid } from './bid-refusal';
import { sshAddressOf, sshEndpoint } from './endpoint';
import { factsOfPod, hasLabel, podIdOf, PROVIDER, SAFE_LABEL, tenderLabelOf } from './lease-facts';
import { offersOf, selectOffers, type Cloud } from './offers';
import { podCreateInput, type PodCreate } from './create-input';
import { filterOfShape, parseShape, regionInput, shapeNodes } from './shape';
import { classifyPod, isGonePod, reportPod } from './status';
import type { InspectImage } from '../images/registry-client';
import { checkPodImage, podImage, sshUserOfPod } from './pod-image';
import { loginMetadata, pullRefused, pullRefusalIn, resolveLogin } from '../image-login';
import {
  authOfLabel,
  deleteHandleAuth,
  isAuthGone,
  removeLeftoverAuths,
  saveLeaseAuth,
  withAuth,
} from './registry-auth';

export { DEFAULT_RUNPOD_URL } from './api-client';

/** RunPod's own base image with sshd that appends $PUBLIC_KEY to authorized_keys at start
 *  (docs pods/configuration/use-ssh.mdx; dstack and SkyPilot use runpod/base images too). */
export const DEFAULT_IMAGE = 'runpod/base:0.6.2-cuda12.4.1';
const MAX_OFFERS_TRIED = 3; // GPU types/clouds tried when RunPod says "no instances available"
// A pod that a create just answered may take a moment to be found by id; until then "no pod"
// is "not yet".
const YOUNG_LEASE_MS = 60_000;

export interface RunpodProviderOptions {
  /** `TENDER_RUNPOD_URL`; default https://api.runpod.io (requests go to `${baseUrl}/graphql`). */
  baseUrl?: string;
  /** `TENDER_RUNPOD_API_KEY`, read at each use (a function when it can change while Tender
   *  runs). Empty: the provider reports itself not configured. */
  apiKey: string | (() => string);
  /** Tender's SSH public key (OpenSSH one-line form), given to each pod as PUBLIC_KEY. */
  publicKey: () => string;
  now?: () => number;
  /** The login name for `user` (root, or the image's own user) on a pod. A seam for the
   *  fake in test/fakes/runpod, whose nodes are throw-away users, one per pod. */
  sshUser?: (podId: string, user: string) => string;
  /** Asks an image's registry what it is before a pod is rented for it (pod-image.ts). */
  inspectImage?: InspectImage;
  /** Where a node finds RUNPOD_POD_ID and RUNPOD_API_KEY when its process environment lacks
   *  them: PID 1's environment on RunPod. A seam for the fake, which writes ~/.runpod-env. */
  podEnvFiles?: string[];
  defaultImage?: string;
  /** Test seams and tuning of the HTTP layer. */
  http?: Omit<RunpodApiOptions, 'baseUrl' | 'apiKey'>;
}

/** RunPod: rents a pod (a container on a machine RunPod picks) per lease, through its GraphQL
 *  API. A lease is a pod named with Tender's label (and carrying it as TENDER_LABEL in its
 *  env); its id is the pod id. Never polls, never waits: the orchestrator calls
 *  lookupEndpoint until SSH is known and isGone until a destroy is confirmed. */
export class RunpodProvider implements Provider {
  readonly kind = PROVIDER;
  readonly replacesFailedBoots = true;
  readonly bills = true;
  private readonly api: KeyedClient<RunpodApiClient>;
  private readonly now: () => number;

  constructor(private readonly opts: RunpodProviderOptions) {
    this.now = opts.now ?? Date.now;
    this.api = new KeyedClient(
      opts.apiKey,
      (apiKey) =>
        new RunpodApiClient({ ...opts.http, baseUrl: opts.baseUrl || DEFAULT_RUNPOD_URL, apiKey }),
      { name: 'RunPod' },
    );
  }

  isConfigured(): boolean {
    return this.api.isConfigured();
  }

  shapeNodes(pool: PoolSpec): NodeShape[] {
    return shapeNodes(pool);
  }

  async searchOffers(filter: OfferFilterInput, signal: AbortSignal): Promise<Offer[]> {
    return this.search(OfferFilter.parse(filter), signal);
  }

  async createLease(req: CreateLeaseRequest, signal: AbortSignal): Promise<CreateLeaseResult> {
    const label = checkLabel(req.label);
    const shape = parseShape(req.shape);
    const api = this.client();
    // A lease is created once per label, whoever asks twice (a retry after an unknown
    // outcome, a replayed effect): a pod that already carries the label is that lease.
    const existing = await this.findLabel(label, signal);
    if (existing)
      return {
        lease: shape.image_login
          ? withAuth(existing, await authOfLabel(api, label, signal))
          : existing,
        endpoint: null,
      };

    const publicKey = this.publicKey();
    const image = shape.image ?? this.opts.defaultImage ?? DEFAULT_IMAGE;
    const login = resolveLogin(shape.image_login, image, req);
    const offers = await this.search(filterOfShape(shape), signal);
    const picked = offers.find((o) => o.offerId === shape.offerId);
    const candidates = [...(picked ? [picked] : []), ...offers.filter((o) => o !== picked)].slice(
      0,
      MAX_OFFERS_TRIED,
    );
    if (candidates.length === 0)
      throw new ProviderError('no RunPod GPU type in stock matches this pool', {
        noCapacity: true,
        hint: 'loosen max_price, min_vram_gb, gpu or verified; `tender offers --provider runpod` shows what is there',
      });
    const bid = shape.interruptible ? checkBid(shape, candidates) : null;
    const { plan, sshUser } = await podImage(image, this.opts.inspectImage, signal, login);
    req.note?.(plan.note);
    // The login is saved under the lease's label just before the pod that pulls with it.
    const authId = login ? await saveLeaseAuth(api, label, login, signal) : null;
    if (authId)
      req.note?.(
        `RunPod registry login for ${login!.server} saved (${authId}); deleted with the pod`,
      );
    try {
      const create = { label, shape, image, publicKey, bid, sshUser };
      return await this.createPod(create, candidates, authId, signal);
    } catch (err) {
      // No pod was made: the login goes now (else the reconciler's sweep takes it).
      if (authId && !(err instanceof ProviderError && err.opts.outcomeUnknown))
        await api.deleteRegistryAuth(authId, signal).catch(() => {});
      throw err;
    }
  }

  private async createPod(
    create: Omit<PodCreate, 'offer'>,
    candidates: Offer[],
    authId: string | null,
    signal: AbortSignal,
  ): Promise<CreateLeaseResult> {
    const { label, shape } = create;
    const api = this.client();
    let lastNoCapacity: RunpodApiError | null = null;
    for (const offer of candidates) {
      const input = {
        ...podCreateInput({ ...create, offer }),
        ...(authId ? { containerRegistryAuthId: authId } : {}),
      };
      let pod: Record<string, unknown>;
      try {
        pod = await api.createPod(input, signal);
      } catch (err) {
        // Out of stock between the search and the create: the next type or cloud may have one.
        if (err instanceof RunpodApiError && err.opts.noCapacity) {
          lastNoCapacity = err;
          continue;
        }
        throw err; // outcomeUnknown included: the orchestrator looks the label up first
      }
      const lease = factsOfPod(pod, label, {
        offerId: offer.offerId,
        quoted:
          input.bidPerGpu !== undefined ? input.bidPerGpu * input.gpuCount : offer.pricePerHour,
        metadata: {
          gpu: `${offer.gpuCount}x ${offer.gpuName}`,
          gpu_count: String(offer.gpuCount),
          offer: offer.offerId,
          image: input.imageName,
          disk_gb: String(input.containerDiskInGb),
          created_at: String(this.now()),
          ...(input.bidPerGpu !== undefined
            ? { interruptible: 'true', bid: String(input.bidPerGpu * input.gpuCount) }
            : {}),
          ...loginMetadata(shape.image_login, input.imageName),
        },
      });
      if (!lease)
        throw new ProviderError(
          `create pod ${label}: RunPod answered a pod id Tender cannot read`,
          {
            outcomeUnknown: true,
          },
        );
      return { lease: withAuth(lease, authId), endpoint: null };
    }
    throw (
      lastNoCapacity ?? new ProviderError('no RunPod capacity for this pool', { noCapacity: true })
    );
  }

  async lookupEndpoint(
    lease: LeaseFacts,
    signal: AbortSignal,
    report?: LeaseReporter,
  ): Promise<NodeEndpoint | null> {
    const id = this.podId(lease.destroyHandle);
    const pod = await this.client().pod(id, signal);
    // A registry that refused the pull: the login (or its lack) named, the run failed now.
    const refusal = pod && !pod.runtime ? pullRefusalIn(pod.lastStatusChange) : null;
    if (refusal) throw pullRefused(lease.metadata, refusal);
    const state = classifyPod(pod);
    switch (state.kind) {
      case 'gone': {
        const createdAt = Number(lease.metadata.created_at);
        if (!pod && Number.isFinite(createdAt) && this.now() - createdAt < YOUNG_LEASE_MS)
          return null;
        throw new ProviderError(`RunPod pod ${id} is gone (terminated)`, { fatal: true });
      }
      case 'failed':
        throw new ProviderError(`RunPod pod ${id}: ${state.reason}`, {
          fatal: true,
          hint: 'terminate it: it may still bill until then',
        });
      case 'starting':
        reportPod(pod, report);
        return null;
      case 'running': {
        const addr = pod ? sshAddressOf(pod) : null;
        if (!pod || !addr) return null; // runtime up, ports not yet
        const user = sshUserOfPod(pod);
        return sshEndpoint(addr, lease.label, this.opts.sshUser?.(id, user) ?? user);
      }
    }
  }

  async destroyLease(handle: DestroyHandle, signal: AbortSignal): Promise<void> {
    // "pod not found to terminate" is success (api-client); anything else throws and is retried.
    await this.client().terminatePod(this.podId(handle), signal);
    await deleteHandleAuth(this.client(), handle, signal); // after its pod: in use till then
  }

  /** Gone once the pod and its registry login both are. */
  async isGone(handle: DestroyHandle, signal: AbortSignal): Promise<boolean> {
    if (!isGonePod(await this.client().pod(this.podId(handle), signal))) return false;
    return isAuthGone(this.client(), handle, signal);
  }

  async removeLeftovers(
    prefix: string,
    keep: (label: string) => boolean,
    signal: AbortSignal,
  ): Promise<string[]> {
    return removeLeftoverAuths(this.client(), prefix, keep, signal);
  }

  async listLabeled(prefix: string, signal: AbortSignal): Promise<LeaseFacts[]> {
    if (!SAFE_LABEL.test(prefix))
      throw new ProviderError(`bad label prefix "${prefix}"`, { fatal: true });
    const found: LeaseFacts[] = [];
    for (const pod of await this.client().listPods(signal)) {
      if (isGonePod(pod)) continue;
      const label = tenderLabelOf(pod, prefix);
      const facts = label ? factsOfPod(pod, label, {}, true) : null;
      if (facts) found.push(facts);
    }
    return found.sort(
      (a, b) => a.label.localeCompare(b.label) || a.contractId.localeCompare(b.contractId),
    );
  }

  /** Judged before the run is written: an image that cannot run a node (pod-image.ts), and a
   *  bid above the on-demand price of the pod it would rent, are bad input. A market or
   *  registry that cannot be asked now is the create's to report. */
  async checkPool(pool: PoolSpec, signal: AbortSignal): Promise<void> {
    const shape = parseShape(this.shapeNodes(pool)[0] ?? {});
    const image = shape.image ?? this.opts.defaultImage ?? DEFAULT_IMAGE;
    await checkPodImage(image, this.opts.inspectImage, signal);
    if (pool.interruptible !== true || pool.bid === undefined) return;
    let offers: Offer[];
    try {
      offers = await this.search(filterOfShape(shape), signal);
    } catch {
      return;
    }
    const refusal = bidRefusal(shape, offers);
    if (refusal) throw new TenderError('bad_input', refusal.message, refusal.hint);
  }

  /** podResume: RunPod may give the pod back with zero GPUs when its machine's GPUs were
   *  rented meanwhile (docs "zero-gpus"); the lease runs once it is listed running. */
  async startLease(lease: LeaseFacts, signal: AbortSignal): Promise<void> {
    const count = Number(lease.metadata.gpu_count ?? '1');
    await this.client().resumePod(
      lease.contractId,
      Number.isInteger(count) && count > 0 ? count : 1,
      signal,
    );
  }

  /** The node terminates its own pod with the key RunPod puts in every pod's environment
   *  (RUNPOD_API_KEY, scoped to that pod); the account key stays here. */
  selfTeardown(): SelfTeardown {
    return {
      kind: 'runpod',
      apiUrl: this.opts.baseUrl || DEFAULT_RUNPOD_URL,
      envFiles: this.opts.podEnvFiles ?? ['/proc/1/environ'],
    };
  }

  private async search(filter: OfferFilter, signal: AbortSignal): Promise<Offer[]> {
    const api = this.client();
    // Secure cloud only when `verified`; otherwise both clouds, asked one at a time (the
    // answer's lowestPrice is for the cloud asked).
    const clouds: Cloud[] = filter.verified ? ['SECURE'] : ['SECURE', 'COMMUNITY'];
    const offers: Offer[] = [];
    for (const cloud of clouds) {
      const rows = await api.gpuTypes(
        {
          gpuCount: filter.gpuCount,
          secureCloud: cloud === 'SECURE',
          ...regionInput(filter.region),
        },
        signal,
      );
      offers.push(...offersOf(rows, cloud, filter));
    }
    return selectOffers(offers, filter);
  }

  /** The pod already carrying `label`, if any (the first by id when there are several). */
  private async findLabel(label: string, signal: AbortSignal): Promise<LeaseFacts | null> {
    const pods = (await this.client().listPods(signal))
      .filter((p) => !isGonePod(p) && hasLabel(p, label))
      .sort((a, b) => String(a.id).localeCompare(String(b.id)));
    return pods[0] ? factsOfPod(pods[0], label) : null;
  }

  private publicKey(): string {
    return readPublicKey(this.opts.publicKey);
  }

  private podId(handle: DestroyHandle): string {
    const id = podIdOf(handle);
    if (!id) throw new ProviderError(`bad runpod lease handle ${handle.leaseId}`, { fatal: true });
    return id;
  }

  private client(): RunpodApiClient {
    return this.api.get();
  }
}

function checkLabel(label: string): string {
  if (!SAFE_LABEL.test(label))
    throw new ProviderError(`bad lease label "${label}"`, { fatal: true });
  return label;
}
