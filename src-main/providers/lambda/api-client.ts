import { isNotFound, isRecord, LambdaApiError } from './errors';
import { HttpTransport, type HttpOptions } from './http-transport';

/** One instance as `GET /instances[/{id}]` answers it; only what the mapping reads. */
export interface LambdaInstance {
  id: string;
  name: string | null;
  /** Null while booting. */
  ip: string | null;
  status: string;
  region: { name: string; description: string } | null;
  instance_type: InstanceTypeInfo | null;
  ssh_key_names: string[];
}

export interface InstanceTypeInfo {
  name: string;
  description: string;
  gpu_description: string;
  price_cents_per_hour: number;
  specs: { vcpus: number; memory_gib: number; storage_gib: number; gpus: number };
}

export interface InstanceTypeEntry {
  instance_type: InstanceTypeInfo;
  regions_with_capacity_available: { name: string; description: string }[];
}

export interface SshKey {
  id: string;
  name: string;
  public_key: string;
}

export interface LaunchBody {
  region_name: string;
  instance_type_name: string;
  /** Exactly one existing key (the spec: "must contain exactly one SSH key name"). */
  ssh_key_names: [string];
  quantity: 1;
  name: string;
}

export type LambdaApiOptions = HttpOptions;

/** One method per Lambda Cloud endpoint (openapi.yaml v1), answers read defensively: a
 *  field we rely on missing is an error naming it, never a guess. */
export class LambdaApiClient {
  private readonly http: HttpTransport;

  constructor(opts: LambdaApiOptions) {
    this.http = new HttpTransport(opts);
  }

  async instanceTypes(signal: AbortSignal): Promise<InstanceTypeEntry[]> {
    const data = await this.http.send(
      { method: 'GET', path: '/instance-types', idempotent: true, what: 'list instance types' },
      signal,
    );
    if (!isRecord(data)) throw shapeError('list instance types', 'an object keyed by type');
    const out: InstanceTypeEntry[] = [];
    for (const entry of Object.values(data)) {
      const type = isRecord(entry) ? instanceTypeOf(entry.instance_type) : null;
      if (!type || !isRecord(entry)) continue;
      const regions = Array.isArray(entry.regions_with_capacity_available)
        ? entry.regions_with_capacity_available.filter(isRecord).map(regionOf)
        : [];
      out.push({
        instance_type: type,
        regions_with_capacity_available: regions.filter((r) => r !== null),
      });
    }
    return out;
  }

  async listInstances(signal: AbortSignal): Promise<LambdaInstance[]> {
    const data = await this.http.send(
      { method: 'GET', path: '/instances', idempotent: true, what: 'list instances' },
      signal,
    );
    if (!Array.isArray(data)) throw shapeError('list instances', 'an array');
    return data.map(instanceOf).filter((i) => i !== null);
  }

  /** Null when Lambda says it does not exist (`global/object-does-not-exist`). */
  async getInstance(id: string, signal: AbortSignal): Promise<LambdaInstance | null> {
    try {
      const data = await this.http.send(
        {
          method: 'GET',
          path: `/instances/${encodeURIComponent(id)}`,
          idempotent: true,
          what: `show instance ${id}`,
        },
        signal,
      );
      const inst = instanceOf(data);
      if (!inst) throw shapeError(`show instance ${id}`, 'an instance with an id and a status');
      return inst;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  /** The id of the one instance launched. Not retried after it may have run (retry.ts). */
  async launch(body: LaunchBody, signal: AbortSignal): Promise<string> {
    const what = `launch ${body.instance_type_name} in ${body.region_name}`;
    const data = await this.http.send(
      {
        method: 'POST',
        path: '/instance-operations/launch',
        body,
        idempotent: false,
        spaced: true,
        what,
      },
      signal,
    );
    const ids = isRecord(data) && Array.isArray(data.instance_ids) ? data.instance_ids : [];
    const id: unknown = ids[0];
    if (typeof id !== 'string' || id === '')
      throw new LambdaApiError(
        `${what}: the answer names no instance id (fewer than asked may have launched)`,
        null,
        null,
        { outcomeUnknown: true },
      );
    return id;
  }

  /** Accepted, or already gone (`global/object-does-not-exist`): both are success. */
  async terminate(id: string, signal: AbortSignal): Promise<void> {
    try {
      await this.http.send(
        {
          method: 'POST',
          path: '/instance-operations/terminate',
          body: { instance_ids: [id] },
          idempotent: true,
          what: `terminate instance ${id}`,
        },
        signal,
      );
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  async listSshKeys(signal: AbortSignal): Promise<SshKey[]> {
    const data = await this.http.send(
      { method: 'GET', path: '/ssh-keys', idempotent: true, what: 'list SSH keys' },
      signal,
    );
    if (!Array.isArray(data)) throw shapeError('list SSH keys', 'an array');
    return data
      .filter(isRecord)
      .flatMap((k) =>
        typeof k.name === 'string' && typeof k.public_key === 'string'
          ? [{ id: String(k.id ?? ''), name: k.name, public_key: k.public_key }]
          : [],
      );
  }

  /** Registers an existing public key under `name` (never asks Lambda to generate one:
   *  the private key would come back in the answer). */
  async addSshKey(name: string, publicKey: string, signal: AbortSignal): Promise<void> {
    await this.http.send(
      {
        method: 'POST',
        path: '/ssh-keys',
        body: { name, public_key: publicKey },
        // Retried: a second add of the same name answers global/duplicate, which the
        // caller resolves by listing.
        idempotent: true,
        what: `add SSH key ${name}`,
      },
      signal,
    );
  }
}

function shapeError(what: string, expected: string): LambdaApiError {
  return new LambdaApiError(
    `${what}: the answer is not ${expected}; check TENDER_LAMBDA_URL`,
    null,
    null,
  );
}

function regionOf(r: Record<string, unknown>): { name: string; description: string } | null {
  if (typeof r.name !== 'string' || r.name === '') return null;
  return { name: r.name, description: typeof r.description === 'string' ? r.description : r.name };
}

function instanceTypeOf(raw: unknown): InstanceTypeInfo | null {
  if (!isRecord(raw) || typeof raw.name !== 'string') return null;
  const specs = isRecord(raw.specs) ? raw.specs : {};
  const price = raw.price_cents_per_hour;
  if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) return null;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return {
    name: raw.name,
    description: typeof raw.description === 'string' ? raw.description : raw.name,
    gpu_description: typeof raw.gpu_description === 'string' ? raw.gpu_description : '',
    price_cents_per_hour: price,
    specs: {
      vcpus: n(specs.vcpus),
      memory_gib: n(specs.memory_gib),
      storage_gib: n(specs.storage_gib),
      gpus: n(specs.gpus),
    },
  };
}

export function instanceOf(raw: unknown): LambdaInstance | null {
  if (!isRecord(raw) || typeof raw.id !== 'string' || typeof raw.status !== 'string') return null;
  return {
    id: raw.id,
    name: typeof raw.name === 'string' ? raw.name : null,
    ip: typeof raw.ip === 'string' && raw.ip !== '' ? raw.ip : null,
    status: raw.status,
    region: isRecord(raw.region) ? regionOf(raw.region) : null,
    instance_type: instanceTypeOf(raw.instance_type),
    ssh_key_names: Array.isArray(raw.ssh_key_names)
      ? raw.ssh_key_names.filter((k): k is string => typeof k === 'string')
      : [],
  };
}
