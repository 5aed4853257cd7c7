import { isPodNotFound, isRecord, RunpodApiError } from './errors';
import { GraphqlTransport, type HttpOptions } from './http-transport';

export const DEFAULT_RUNPOD_URL = 'https://api.runpod.io';

export type RunpodApiOptions = HttpOptions;

/** The fields Tender reads of a pod, in every query that answers one (graphql-spec.runpod.io
 *  `Pod`; runpod-python queries/pods.py). */
const POD_FIELDS = `id name desiredStatus lastStatusChange imageName env costPerHr gpuCount
  machineId podType machine { gpuDisplayName podHostId }
  runtime { uptimeInSeconds ports { ip isIpPublic privatePort publicPort type } }`;

const GPU_TYPES = `query GpuTypes($lowestPriceInput: GpuLowestPriceInput) {
  gpuTypes {
    id displayName memoryInGb maxGpuCount secureCloud communityCloud
    lowestPrice(input: $lowestPriceInput) { minimumBidPrice uninterruptablePrice stockStatus }
  }
}`;
const MY_PODS = `query MyPods { myself { pods { ${POD_FIELDS} } } }`;
const ONE_POD = `query Pod($input: PodFilter!) { pod(input: $input) { ${POD_FIELDS} } }`;
const DEPLOY_ON_DEMAND = `mutation Deploy($input: PodFindAndDeployOnDemandInput!) {
  podFindAndDeployOnDemand(input: $input) { ${POD_FIELDS} }
}`;
const RENT_INTERRUPTABLE = `mutation Rent($input: PodRentInterruptableInput!) {
  podRentInterruptable(input: $input) { ${POD_FIELDS} }
}`;
// podTerminate has no selection set: it answers `{"podTerminate": null}`.
const TERMINATE = `mutation Terminate($input: PodTerminateInput!) { podTerminate(input: $input) }`;
const RESUME = `mutation Resume($input: PodResumeInput!) {
  podResume(input: $input) { id desiredStatus }
}`;

// Container registry auths (runpod-python mutations/container_register_auth.py; dstack's
// runpod api_client): a login RunPod pulls a pod's image with, named by Tender's label.
const SAVE_AUTH = `mutation SaveRegistryAuth($input: SaveRegistryAuthInput!) {
  saveRegistryAuth(input: $input) { id name }
}`;
// deleteRegistryAuth has no selection set.
const DELETE_AUTH = `mutation DeleteRegistryAuth($registryAuthId: String!) {
  deleteRegistryAuth(registryAuthId: $registryAuthId)
}`;
const MY_AUTHS = `query RegistryAuths { myself { containerRegistryCreds { id name } } }`;

export type RunpodPod = Record<string, unknown>;

/** One GPU type with its lowest price for the count asked (null: not offered that way). */
export interface GpuTypeRow {
  id: string;
  displayName: string;
  memoryInGb: number;
  maxGpuCount: number | null;
  secureCloud: boolean;
  communityCloud: boolean;
  lowestPrice: {
    minimumBidPrice: number | null;
    uninterruptablePrice: number | null;
    stockStatus: string | null;
  } | null;
}

/** The create input both create mutations take (podRentInterruptable adds `bidPerGpu`). */
export interface PodCreateInput {
  name: string;
  imageName: string;
  gpuTypeId: string;
  gpuCount: number;
  cloudType: 'SECURE' | 'COMMUNITY' | 'ALL';
  containerDiskInGb: number;
  volumeInGb: number;
  ports: string;
  supportPublicIp: boolean;
  startSsh: boolean;
  /** The container's command (Docker CMD), split as a shell would. */
  dockerArgs?: string;
  env: { key: string; value: string }[];
  dataCenterId?: string;
  countryCode?: string;
  bidPerGpu?: number;
  /** The container registry auth the image is pulled with (a private image). */
  containerRegistryAuthId?: string;
}

/** The RunPod GraphQL calls Tender makes, one method each; the mapping lives in provider.ts. */
export class RunpodApiClient {
  private readonly http: GraphqlTransport;

  constructor(opts: RunpodApiOptions) {
    this.http = new GraphqlTransport(opts);
  }

  async gpuTypes(
    lowestPriceInput: { gpuCount: number; secureCloud?: boolean },
    signal: AbortSignal,
  ): Promise<GpuTypeRow[]> {
    const data = await this.http.request(
      {
        query: GPU_TYPES,
        variables: { lowestPriceInput },
        idempotent: true,
        what: 'list GPU types',
      },
      signal,
    );
    const rows = Array.isArray(data.gpuTypes) ? data.gpuTypes : [];
    return rows.filter(isRecord).flatMap((r) => {
      const row = gpuTypeRow(r);
      return row ? [row] : [];
    });
  }

  async listPods(signal: AbortSignal): Promise<RunpodPod[]> {
    const data = await this.http.request(
      { query: MY_PODS, idempotent: true, what: 'list pods' },
      signal,
    );
    const me = data.myself;
    if (!isRecord(me)) throw new RunpodApiError('list pods: RunPod answered no account', 200, null);
    return Array.isArray(me.pods) ? me.pods.filter(isRecord) : [];
  }

  /** The pod, or null when RunPod has none with that id (terminated pods vanish). */
  async pod(podId: string, signal: AbortSignal): Promise<RunpodPod | null> {
    try {
      const data = await this.http.request(
        {
          query: ONE_POD,
          variables: { input: { podId } },
          idempotent: true,
          what: `show pod ${podId}`,
        },
        signal,
      );
      return isRecord(data.pod) ? data.pod : null;
    } catch (err) {
      if (isPodNotFound(err)) return null;
      throw err;
    }
  }

  async createPod(input: PodCreateInput, signal: AbortSignal): Promise<RunpodPod> {
    const interruptible = input.bidPerGpu !== undefined;
    const field = interruptible ? 'podRentInterruptable' : 'podFindAndDeployOnDemand';
    const data = await this.http.request(
      {
        query: interruptible ? RENT_INTERRUPTABLE : DEPLOY_ON_DEMAND,
        variables: { input },
        idempotent: false,
        what: `create pod ${input.name}`,
      },
      signal,
    );
    const pod = data[field];
    if (!isRecord(pod) || typeof pod.id !== 'string')
      throw new RunpodApiError(
        `create pod ${input.name}: RunPod answered no pod id; it may have been created anyway — look the label up before creating again`,
        200,
        null,
        { outcomeUnknown: true },
      );
    return pod;
  }

  /** Resolves once RunPod accepted the terminate, or says the pod is not there. */
  async terminatePod(podId: string, signal: AbortSignal): Promise<void> {
    try {
      await this.http.request(
        {
          query: TERMINATE,
          variables: { input: { podId } },
          idempotent: true,
          what: `terminate pod ${podId}`,
        },
        signal,
      );
    } catch (err) {
      if (!isPodNotFound(err)) throw err;
    }
  }

  /** Saves a registry login; its id. The password travels in `variables` only, and is
   *  scrubbed from any error RunPod might echo it in. */
  async saveRegistryAuth(
    input: { name: string; username: string; password: string },
    signal: AbortSignal,
  ): Promise<string> {
    try {
      const data = await this.http.request(
        {
          query: SAVE_AUTH,
          variables: { input },
          idempotent: false,
          what: `save registry login ${input.name}`,
        },
        signal,
      );
      const saved = data.saveRegistryAuth;
      if (!isRecord(saved) || typeof saved.id !== 'string')
        throw new RunpodApiError(
          `save registry login ${input.name}: RunPod answered no id; it may have been saved anyway`,
          200,
          null,
          { outcomeUnknown: true },
        );
      return saved.id;
    } catch (err) {
      if (err instanceof Error) err.message = err.message.split(input.password).join('***');
      throw err;
    }
  }

  /** Resolves once RunPod deleted it, or says there is no such auth. */
  async deleteRegistryAuth(id: string, signal: AbortSignal): Promise<void> {
    try {
      await this.http.request(
        {
          query: DELETE_AUTH,
          variables: { registryAuthId: id },
          idempotent: true,
          what: `delete registry login ${id}`,
        },
        signal,
      );
    } catch (err) {
      if (!(err instanceof RunpodApiError && /not found|does not exist/i.test(err.message)))
        throw err;
    }
  }

  /** The account's registry logins, by id and name. */
  async listRegistryAuths(signal: AbortSignal): Promise<{ id: string; name: string }[]> {
    const data = await this.http.request(
      { query: MY_AUTHS, idempotent: true, what: 'list registry logins' },
      signal,
    );
    const me = data.myself;
    const creds: unknown[] =
      isRecord(me) && Array.isArray(me.containerRegistryCreds) ? me.containerRegistryCreds : [];
    return creds.flatMap((c) =>
      isRecord(c) && typeof c.id === 'string' && typeof c.name === 'string'
        ? [{ id: c.id, name: c.name }]
        : [],
    );
  }

  async resumePod(podId: string, gpuCount: number, signal: AbortSignal): Promise<void> {
    await this.http.request(
      {
        query: RESUME,
        variables: { input: { podId, gpuCount } },
        idempotent: true,
        what: `resume pod ${podId}`,
      },
      signal,
    );
  }
}

function gpuTypeRow(r: Record<string, unknown>): GpuTypeRow | null {
  if (typeof r.id !== 'string' || typeof r.memoryInGb !== 'number') return null;
  const lp = isRecord(r.lowestPrice) ? r.lowestPrice : null;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    id: r.id,
    displayName: typeof r.displayName === 'string' && r.displayName ? r.displayName : r.id,
    memoryInGb: r.memoryInGb,
    maxGpuCount: num(r.maxGpuCount),
    secureCloud: r.secureCloud === true,
    communityCloud: r.communityCloud === true,
    lowestPrice: lp
      ? {
          minimumBidPrice: num(lp.minimumBidPrice),
          uninterruptablePrice: num(lp.uninterruptablePrice),
          stockStatus: typeof lp.stockStatus === 'string' && lp.stockStatus ? lp.stockStatus : null,
        }
      : null,
  };
}
