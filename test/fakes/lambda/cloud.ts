// The fake's state: instance types with the regions that have capacity, the account's SSH
// keys, and instances whose machine is a real sshd (test/fakes/vast/node.ts: a throw-away
// user, listening only once the instance is active). Time is real time: the fake is
// exercised through a real provider, whose waits are real.
import { randomBytes } from 'node:crypto';
import { VastNode } from '../vast/node';
import { freshFaults, takeCount, takeNoCapacity, type FaultState } from './faults';
import { ApiFailure, invalidParameters, NO_CAPACITY, NOT_FOUND, apiError } from './reply';

export interface InstanceTypeSeed {
  name: string;
  description?: string;
  gpu_description: string;
  price_cents_per_hour: number;
  specs?: Partial<{ vcpus: number; memory_gib: number; storage_gib: number; gpus: number }>;
  /** Regions listed under `regions_with_capacity_available` (and launchable). */
  regions: { name: string; description: string }[];
}

export interface Timings {
  /** booting → active (ip set, sshd listening). */
  bootMs: number;
  /** terminating → terminated (sshd and user gone at terminate already). */
  terminatingMs: number;
  /** A terminated instance stays listed (status terminated) this long, then 404. */
  terminatedListedMs: number;
}

export const DEFAULT_TIMINGS: Timings = {
  bootMs: 300,
  terminatingMs: 0,
  terminatedListedMs: 1_000,
};

export interface InstanceRecord {
  id: string;
  name: string | null;
  type: InstanceTypeSeed;
  region: { name: string; description: string };
  sshKeyName: string;
  status: 'booting' | 'active' | 'unhealthy' | 'terminating' | 'terminated';
  createdAt: number;
  activeAt: number | null;
  terminatedAt: number | null;
  stuck: boolean;
  node: VastNode;
}

export interface SshKeyRecord {
  id: string;
  name: string;
  public_key: string;
}

const MAX_NAME = 64;

export class LambdaCloud {
  readonly types = new Map<string, InstanceTypeSeed>();
  readonly instances = new Map<string, InstanceRecord>();
  readonly keys: SshKeyRecord[] = [];
  faults: FaultState = freshFaults();
  private lastLaunchAt: number | null = null;
  private pending: Promise<unknown>[] = [];

  constructor(readonly timings: Timings) {}

  addTypes(seeds: InstanceTypeSeed[]): void {
    for (const s of seeds) this.types.set(s.name, s);
  }

  typeView(t: InstanceTypeSeed): Record<string, unknown> {
    const gpus = t.specs?.gpus ?? 1;
    return {
      name: t.name,
      description: t.description ?? `${gpus}x ${t.gpu_description}`,
      gpu_description: t.gpu_description,
      price_cents_per_hour: t.price_cents_per_hour,
      specs: {
        vcpus: t.specs?.vcpus ?? 30 * gpus,
        memory_gib: t.specs?.memory_gib ?? 200 * gpus,
        storage_gib: t.specs?.storage_gib ?? 512 * gpus,
        gpus,
      },
    };
  }

  instanceTypes(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const t of this.types.values())
      out[t.name] = {
        instance_type: this.typeView(t),
        regions_with_capacity_available: t.regions.map((r) => ({ ...r })),
      };
    return out;
  }

  /** Listed: not terminated longer ago than `terminatedListedMs`. */
  isListed(i: InstanceRecord, now: number): boolean {
    return i.terminatedAt === null || now - i.terminatedAt < this.timings.terminatedListedMs;
  }

  view(i: InstanceRecord): Record<string, unknown> {
    const ip = i.status === 'active' || i.status === 'unhealthy' ? '127.0.0.1' : null;
    const available = { available: i.status === 'active' };
    return {
      id: i.id,
      name: i.name,
      ip,
      private_ip: ip ? '10.0.2.100' : null,
      status: i.status,
      ssh_key_names: [i.sshKeyName],
      file_system_names: [],
      region: { ...i.region },
      instance_type: this.typeView(i.type),
      hostname: ip ? '127-0-0-1.cloud.lambdalabs.com' : null,
      jupyter_token: i.id.slice(0, 8),
      jupyter_url: `https://jupyter-${i.id}.lambdaspaces.com/?token=${i.id.slice(0, 8)}`,
      actions: {
        migrate: { available: false },
        rebuild: available,
        restart: available,
        cold_reboot: available,
        terminate: { available: i.status !== 'terminated' },
      },
    };
  }

  async launch(
    body: unknown,
    now: number,
  ): Promise<{ inst: InstanceRecord; failWith: number | null }> {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof b.region_name !== 'string') throw invalidParameters('region_name', 'Required.');
    if (typeof b.instance_type_name !== 'string')
      throw invalidParameters('instance_type_name', 'Required.');
    const keys = b.ssh_key_names;
    if (!Array.isArray(keys) || keys.length !== 1 || typeof keys[0] !== 'string')
      throw invalidParameters('ssh_key_names', 'Must contain exactly one SSH key name.');
    const key = this.keys.find((k) => k.name === keys[0]);
    if (!key)
      throw invalidParameters('ssh_key_names', `SSH key "${String(keys[0])}" does not exist.`);
    if (b.quantity !== undefined && b.quantity !== 1)
      throw invalidParameters('quantity', 'Must be 1.');
    if (
      b.name !== undefined &&
      b.name !== null &&
      (typeof b.name !== 'string' || b.name.length > MAX_NAME)
    )
      throw invalidParameters('name', `Must be a string of at most ${MAX_NAME} characters.`);
    const type = this.types.get(b.instance_type_name);
    if (!type) throw invalidParameters('instance_type_name', 'Unknown instance type.');
    const region = type.regions.find((r) => r.name === b.region_name);
    if (!region || takeNoCapacity(this.faults, type.name, b.region_name))
      throw new ApiFailure(NO_CAPACITY);
    this.lastLaunchAt = now;
    const node = await VastNode.prepare();
    node.setAuthorizedKeys([key.public_key]);
    const inst: InstanceRecord = {
      id: randomBytes(16).toString('hex'),
      name: typeof b.name === 'string' ? b.name : null,
      type,
      region,
      sshKeyName: key.name,
      status: 'booting',
      createdAt: now,
      activeAt: null,
      terminatedAt: null,
      stuck: this.faults.stuckBooting > 0,
      node,
    };
    if (inst.stuck) this.faults.stuckBooting -= 1;
    this.instances.set(inst.id, inst);
    return { inst, failWith: takeCount(this.faults.launchFailures) };
  }

  /** Whether a launch now breaks the armed launch rate limit. */
  isLaunchTooSoon(now: number): boolean {
    return (
      this.faults.launchLimitMs > 0 &&
      this.lastLaunchAt !== null &&
      now - this.lastLaunchAt < this.faults.launchLimitMs
    );
  }

  terminate(body: unknown, now: number): Record<string, unknown>[] {
    const ids = (body as { instance_ids?: unknown } | undefined)?.instance_ids;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((i) => typeof i === 'string'))
      throw invalidParameters('instance_ids', 'Must be a non-empty list of instance ids.');
    const found = ids
      .map((id) => this.instances.get(id as string))
      .filter((i): i is InstanceRecord => i !== undefined && this.isListed(i, now));
    if (found.length === 0) throw new ApiFailure(NOT_FOUND('instance'));
    const failWith = takeCount(this.faults.terminateFailures);
    if (failWith !== null)
      throw new ApiFailure(apiError(failWith, 'global/unknown', 'An unknown error occurred.'));
    for (const inst of found) {
      if (inst.terminatedAt !== null) continue;
      inst.terminatedAt = now;
      inst.status = this.timings.terminatingMs > 0 ? 'terminating' : 'terminated';
      this.track(inst.node.stop());
    }
    return found.map((i) => this.view(i));
  }

  addKey(body: unknown): SshKeyRecord {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof b.name !== 'string' || b.name === '') throw invalidParameters('name', 'Required.');
    if (typeof b.public_key !== 'string' || !/^(ssh-|ecdsa-)\S+ \S+/.test(b.public_key))
      throw invalidParameters(
        'public_key',
        'This fake registers existing public keys only (it does not generate key pairs).',
      );
    if (this.keys.some((k) => k.name === b.name))
      throw new ApiFailure(
        apiError(400, 'global/duplicate', `An SSH key named "${b.name}" already exists.`),
      );
    const key = {
      id: randomBytes(16).toString('hex'),
      name: b.name,
      public_key: b.public_key.trim(),
    };
    this.keys.push(key);
    return key;
  }

  deleteKey(id: string, now: number): void {
    const at = this.keys.findIndex((k) => k.id === id);
    if (at < 0) throw new ApiFailure(NOT_FOUND('SSH key'));
    const name = this.keys[at]!.name;
    const inUse = [...this.instances.values()].some(
      (i) => i.sshKeyName === name && this.isListed(i, now) && i.terminatedAt === null,
    );
    if (inUse) throw new ApiFailure(apiError(400, 'ssh-keys/key-in-use', 'The SSH key is in use.'));
    this.keys.splice(at, 1);
  }

  /** Moves instances along: booting → active (sshd listens), terminating → terminated. */
  async sync(now: number): Promise<void> {
    for (const inst of this.instances.values()) {
      if (inst.status === 'booting' && !inst.stuck && now - inst.createdAt >= this.timings.bootMs) {
        inst.status = 'active';
        inst.activeAt = now;
        await inst.node.listen();
      }
      if (
        inst.status === 'terminating' &&
        inst.terminatedAt !== null &&
        now - inst.terminatedAt >= this.timings.terminatingMs
      )
        inst.status = 'terminated';
    }
    await Promise.all(this.pending);
  }

  async setStatus(id: string, status: 'active' | 'unhealthy'): Promise<void> {
    const inst = this.instances.get(id);
    if (!inst || inst.terminatedAt !== null) throw new Error(`fake lambda: no live instance ${id}`);
    inst.status = status;
    if (status === 'unhealthy') await inst.node.pause();
    else await inst.node.listen();
  }

  async close(): Promise<void> {
    await Promise.all([...this.instances.values()].map((i) => i.node.stop()));
    await Promise.all(this.pending);
  }

  private track(p: Promise<unknown>): void {
    const tracked = p.catch(() => {});
    this.pending.push(tracked);
    void tracked.then(() => {
      this.pending = this.pending.filter((x) => x !== tracked);
    });
  }
}
