// A faithful local Lambda Cloud (README.md): the REST API of openapi.yaml v1 on 127.0.0.1,
// whose instances are real sshd nodes. Needs root (throw-away users).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { DEFAULT_TIMINGS, LambdaCloud, type InstanceTypeSeed, type Timings } from './cloud';
import { armRateLimit, freshFaults, type CapacityFault, type RateLimitOptions } from './faults';
import { startServer, type CallRecord } from './server';

export type { InstanceTypeSeed, Timings } from './cloud';
export type { CallRecord } from './server';

export interface FakeLambdaOptions {
  /** Default: DEFAULT_TYPES. */
  instanceTypes?: InstanceTypeSeed[];
  apiKey?: string;
  timings?: Partial<Timings>;
  /** SSH keys already on the account. */
  sshKeys?: { name: string; public_key: string }[];
  /** Background sync every this many ms of real time (default 20). */
  pumpMs?: number;
}

/** Three types as Lambda names and prices them (cloud.lambda.ai pricing, 2025). */
export const DEFAULT_TYPES: InstanceTypeSeed[] = [
  {
    name: 'gpu_1x_a10',
    gpu_description: 'A10 (24 GB PCIe)',
    price_cents_per_hour: 75,
    regions: [
      { name: 'us-east-1', description: 'Virginia, USA' },
      { name: 'us-west-1', description: 'California, USA' },
    ],
  },
  {
    name: 'gpu_1x_a100_sxm4',
    gpu_description: 'A100 (40 GB SXM4)',
    price_cents_per_hour: 129,
    regions: [{ name: 'us-east-1', description: 'Virginia, USA' }],
  },
  {
    name: 'gpu_8x_h100_sxm5',
    gpu_description: 'H100 (80 GB SXM5)',
    price_cents_per_hour: 2392,
    specs: { gpus: 8 },
    regions: [{ name: 'us-south-1', description: 'Texas, USA' }],
  },
];

export interface InstanceSnapshot {
  id: string;
  name: string | null;
  status: string;
  instanceType: string;
  region: string;
  sshKeyName: string;
  isLive: boolean;
  createdAt: number;
  terminatedAt: number | null;
  /** The API's instance object now. */
  view: Record<string, unknown>;
  node: { user: string; home: string; port: number; isListening: boolean; hostPublicKey: string };
}

export interface BillingSnapshot {
  instanceId: string;
  pricePerHour: number;
  hours: number;
  accruedUsd: number;
}

export interface FaultKnobs {
  /** 429s: the next N calls and/or a ratio (seeded), optionally only matching calls. */
  rateLimit(opts: RateLimitOptions): void;
  /** Launches answer 400 insufficient-capacity (matching type/region; the next `count`, or
   *  every one) although /instance-types lists capacity: the documented gotcha. */
  insufficientCapacity(opts?: CapacityFault): void;
  /** The next `count` launches really launch (and bill), then answer `status`. */
  failLaunchAfterCommit(count?: number, status?: number): void;
  /** The next `count` launched instances stay booting (ip null, sshd refusing). */
  stuckBooting(count?: number): void;
  /** The next `count` terminates answer `status` and terminate nothing. */
  failTerminates(count: number, status?: number): void;
  /** One launch per `ms`: a launch sooner after the last accepted one answers 429. */
  launchRateLimit(ms: number): void;
  /** An instance turns unhealthy (sshd refuses) or active again. */
  setStatus(instanceId: string, status: 'active' | 'unhealthy'): Promise<void>;
  /** The instance's machine answers with a new host key (reinstalled behind the address). */
  newHostKey(instanceId: string): Promise<void>;
  /** Disarms every knob. */
  reset(): void;
}

export interface FakeLambda {
  /** The server root: `${url}/api/v1/…`. */
  url: string;
  apiKey: string;
  state: {
    instances(): InstanceSnapshot[];
    /** Not terminated: what still bills. */
    liveInstances(): InstanceSnapshot[];
    calls(): CallRecord[];
    billing(instanceId: string): BillingSnapshot;
    sshKeys(): { id: string; name: string; public_key: string }[];
  };
  faults: FaultKnobs;
  addInstanceTypes(...seeds: InstanceTypeSeed[]): void;
  /** Moves instances along now and waits for it (sshd starts, teardowns end). */
  sync(): Promise<void>;
  /** Stops the server and every node (sshd, user, processes). Idempotent. */
  stop(): Promise<void>;
}

export async function startFakeLambda(opts: FakeLambdaOptions = {}): Promise<FakeLambda> {
  if (process.getuid?.() !== 0)
    throw new Error('the fake Lambda runs real sshd nodes with throw-away users: run it as root');
  if (!existsSync('/usr/sbin/sshd'))
    throw new Error('/usr/sbin/sshd is missing: apt-get install openssh-server openssh-client');
  const cloud = new LambdaCloud({ ...DEFAULT_TIMINGS, ...opts.timings });
  cloud.addTypes(opts.instanceTypes ?? DEFAULT_TYPES);
  for (const k of opts.sshKeys ?? []) cloud.addKey(k);
  const apiKey = opts.apiKey ?? `secret_tender_${randomBytes(16).toString('hex')}`;
  const server = await startServer(cloud, apiKey);
  const pump = setInterval(() => void cloud.sync(Date.now()).catch(() => {}), opts.pumpMs ?? 20);
  pump.unref();
  let stopping: Promise<void> | null = null;

  const snapshot = (i: typeof cloud.instances extends Map<string, infer R> ? R : never) => ({
    id: i.id,
    name: i.name,
    status: i.status,
    instanceType: i.type.name,
    region: i.region.name,
    sshKeyName: i.sshKeyName,
    isLive: i.terminatedAt === null,
    createdAt: i.createdAt,
    terminatedAt: i.terminatedAt,
    view: cloud.view(i),
    node: {
      user: i.node.user,
      home: i.node.home,
      port: i.node.port,
      isListening: i.node.isListening,
      hostPublicKey: i.node.hostPublicKey,
    },
  });

  const faults: FaultKnobs = {
    rateLimit: (o) => armRateLimit(cloud.faults, o),
    insufficientCapacity: (o = {}) =>
      void cloud.faults.capacity.push({
        instanceType: o.instanceType ?? null,
        region: o.region ?? null,
        remaining: o.count ?? Number.POSITIVE_INFINITY,
      }),
    failLaunchAfterCommit: (count = 1, status = 500) =>
      void (cloud.faults.launchFailures = { remaining: count, status }),
    stuckBooting: (count = 1) => void (cloud.faults.stuckBooting = count),
    failTerminates: (count, status = 500) =>
      void (cloud.faults.terminateFailures = { remaining: count, status }),
    launchRateLimit: (ms) => void (cloud.faults.launchLimitMs = ms),
    setStatus: (id, status) => cloud.setStatus(id, status),
    newHostKey: async (id) => {
      const inst = cloud.instances.get(id);
      if (!inst || inst.terminatedAt !== null)
        throw new Error(`fake lambda: no live instance ${id}`);
      await inst.node.newHostKey();
    },
    reset: () => void (cloud.faults = freshFaults()),
  };

  return {
    url: server.url,
    apiKey,
    state: {
      instances: () => [...cloud.instances.values()].map(snapshot),
      liveInstances: () =>
        [...cloud.instances.values()].filter((i) => i.terminatedAt === null).map(snapshot),
      calls: () => server.calls.map((c) => ({ ...c })),
      billing: (id) => {
        const i = cloud.instances.get(id);
        if (!i) throw new Error(`fake lambda: no instance ${id}`);
        const hours = ((i.terminatedAt ?? Date.now()) - i.createdAt) / 3_600_000;
        const pricePerHour = i.type.price_cents_per_hour / 100;
        return { instanceId: id, pricePerHour, hours, accruedUsd: hours * pricePerHour };
      },
      sshKeys: () => cloud.keys.map((k) => ({ ...k })),
    },
    faults,
    addInstanceTypes: (...seeds) => cloud.addTypes(seeds),
    sync: () => cloud.sync(Date.now()),
    stop: () => {
      stopping ??= (async () => {
        clearInterval(pump);
        await server.close();
        await cloud.close();
      })();
      return stopping;
    },
  };
}
