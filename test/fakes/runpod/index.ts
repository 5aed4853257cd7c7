// A local RunPod GraphQL API for tests, whose pods are real nodes (sshd + a throw-away user).
// See README.md for the operations, the shapes and where each comes from.
//
//   const rp = await startFakeRunpod({ gpuTypes: [{ id: 'NVIDIA GeForce RTX 4090', memoryInGb: 24 }] });
//   fetch(`${rp.url}/graphql`, { method: 'POST', headers: { Authorization: `Bearer ${rp.apiKey}` }, … })
//   rp.faults.rateLimit({ next: 5 }); rp.state.calls(); await rp.stop();
//
// Needs root (useradd, sshd), like test/helpers/sshd.ts.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { armRateLimit, freshFaults, type RateLimitOptions } from './faults';
import { DEFAULT_GPU_TYPES, gpuTypeOf, type GpuType, type GpuTypeSeed } from './gpu-types';
import { podView, PodStore, RUNPOD_ENV_FILE } from './pods';
import { startServer, type CallRecord } from './server';
import { FakeRegistries } from '../private-registry';
import { RegistryAuthStore, type RegistryAuthRecord } from './registry-auths';
import { imagePullOf, type ImagePullOptions } from '../image-pull';
import type { ImageCatalog } from '../images/image';

export { DEFAULT_GPU_TYPES, type CloudSeed, type GpuTypeSeed } from './gpu-types';
export { NO_CAPACITY_MESSAGE, NOT_FOUND_TO_TERMINATE, RUNPOD_ENV_FILE } from './pods';
export type { CallRecord, KeyUsed } from './server';
export type { RateLimitOptions } from './faults';

export interface FakeRunpodOptions {
  /** The account's API key (default: random, like RunPod's `rpa_…`). */
  apiKey?: string;
  gpuTypes?: GpuTypeSeed[];
  /** Ms of its clock from create (or resume) until the runtime appears and sshd listens. */
  bootMs?: number;
  /** Drives boots, pulls and billing (default: the system clock). */
  clock?: { now(): number };
  /** What the images are (their user, sshd, sudo); unknown images run as root with sshd
   *  they start themselves. `startFakeRegistry(…).catalog` describes the same images. */
  images?: ImageCatalog;
}

export interface PodSnapshot {
  id: string;
  name: string;
  desiredStatus: string;
  hasRuntime: boolean;
  interruptible: boolean;
  bidPerGpu: number | null;
  costPerHr: number;
  gpuTypeId: string;
  gpuCount: number;
  cloudType: 'SECURE' | 'COMMUNITY';
  /** The create's env, as sent (PUBLIC_KEY, TENDER_LABEL…). */
  env: Record<string, string>;
  createdAt: number;
  terminatedAt: number | null;
  terminatedBy: 'account' | 'pod' | null;
  exitedBy: 'stop' | 'preempt' | null;
  /** RUNPOD_API_KEY. */
  apiKey: string;
  /** The container command the create sent ('' : the image's own). */
  dockerArgs: string;
  /** What the container command printed. */
  commandLog: string[];
  /** The API's pod object at this moment. */
  view: Record<string, unknown>;
  node: {
    user: string;
    home: string;
    port: number;
    envFile: string;
    isListening: boolean;
    hostPublicKey: string;
  };
}

export interface FakeRunpod {
  /** The base URL (the API is at `${url}/graphql`). */
  url: string;
  apiKey: string;
  state: {
    pods(): PodSnapshot[];
    /** Pods not terminated: what bills. */
    livePods(): PodSnapshot[];
    calls(): CallRecord[];
    /** Every container registry auth ever saved (deleted ones with `deletedAt`). */
    registryAuths(): RegistryAuthRecord[];
    /** The login name SSH as `user` reaches on the pod (the provider's `sshUser` seam):
     *  its node's throw-away user when the container lets `user` in, else a name nobody has. */
    loginFor(podId: string, user: string): string;
    billing(podId: string): {
      costPerHr: number;
      hours: number;
      accruedUsd: number;
      endedAt: number | null;
    };
  };
  faults: {
    /** 429s: the next N calls and/or a ratio (seeded), with Retry-After when asked. */
    rateLimit(opts: RateLimitOptions): void;
    /** Creates of this GPU type (or of every type, without one) answer "no longer any
     *  instances available". Listed stock is unchanged, as on RunPod. */
    noCapacity(gpuTypeId?: string): void;
    /** Undoes noCapacity. */
    restoreCapacity(): void;
    /** The next `count` creates really create (and bill) the pod, then answer `status`. */
    failCreateAfterCreate(count?: number, status?: number): void;
    /** The next `count` pods never get a runtime: RUNNING, billed, sshd never listening. */
    stuckBooting(count?: number): void;
    /** An interruptible pod is taken back: EXITED, its node's processes killed, still listed. */
    preempt(podId: string): Promise<void>;
    /** The next `count` podTerminate calls answer `status` and terminate nothing. */
    failTerminates(count?: number, status?: number): void;
    /** The pod's machine answers with a new host key (reinstalled behind the address). */
    newHostKey(podId: string): Promise<void>;
    /** The next `count` pods pull their image at `gbPerMin` of the fake's clock: RUNNING
     *  without a runtime, `lastStatusChange` saying how far, then up; with `stallAtGb` the
     *  pull stops there for good and the runtime never comes. */
    nextPodPull(opts: ImagePullOptions & { count?: number }): void;
  };
  addGpuTypes(...seeds: GpuTypeSeed[]): void;
  /** Private images (`registries.addPrivate(image, user, password)`): a pod created without
   *  the matching registry auth never boots, its lastStatusChange Docker's refusal. */
  registries: FakeRegistries;
  /** Ends every node (sshd, user, processes) and the server. */
  stop(): Promise<void>;
}

export async function startFakeRunpod(opts: FakeRunpodOptions = {}): Promise<FakeRunpod> {
  const apiKey = opts.apiKey ?? `rpa_${randomBytes(24).toString('hex').toUpperCase()}`;
  const gpuTypes: GpuType[] = (opts.gpuTypes ?? DEFAULT_GPU_TYPES).map(gpuTypeOf);
  const faults = freshFaults();
  const clock = opts.clock ?? { now: () => Date.now() };
  const now = () => clock.now();
  const store = new PodStore(gpuTypes, faults, opts.bootMs ?? 300, now, opts.images);
  const registries = new FakeRegistries();
  const auths = new RegistryAuthStore(now, (id) =>
    store.live().some((p) => p.registryAuthId === id),
  );
  const server = await startServer({ apiKey, store, gpuTypes, faults, now, auths, registries });

  const snapshot = (p: (typeof store.pods)[number]): PodSnapshot => ({
    id: p.id,
    name: p.name,
    desiredStatus: p.desiredStatus,
    hasRuntime: p.hasRuntime,
    interruptible: p.interruptible,
    bidPerGpu: p.bidPerGpu,
    costPerHr: p.costPerHr,
    gpuTypeId: p.gpuType.id,
    gpuCount: p.gpuCount,
    cloudType: p.cloudType,
    env: { ...p.env },
    createdAt: p.createdAt,
    terminatedAt: p.terminatedAt,
    terminatedBy: p.terminatedBy,
    exitedBy: p.exitedBy,
    apiKey: p.apiKey,
    dockerArgs: p.dockerArgs,
    commandLog: p.command?.log() ?? [],
    view: podView(p, now()),
    node: {
      user: p.node.user,
      home: p.node.home,
      port: p.node.port,
      envFile: join(p.node.home, RUNPOD_ENV_FILE),
      isListening: p.node.isListening,
      hostPublicKey: p.node.hostPublicKey,
    },
  });

  return {
    url: server.url,
    apiKey,
    state: {
      pods: () => store.pods.map(snapshot),
      livePods: () => store.live().map(snapshot),
      calls: () => server.calls.map((c) => ({ ...c })),
      registryAuths: () => auths.auths.map((a) => ({ ...a })),
      loginFor: (podId, user) => store.loginFor(podId, user),
      billing: (podId) => {
        const p = store.find(podId);
        if (!p) throw new Error(`fake runpod: no pod ${podId}`);
        const hours = store.billedMs(p) / 3_600_000;
        return {
          costPerHr: p.costPerHr,
          hours,
          accruedUsd: hours * p.costPerHr,
          endedAt: p.terminatedAt,
        };
      },
    },
    faults: {
      rateLimit: (o) => armRateLimit(faults, o),
      noCapacity: (id) => void faults.noCapacity.add(id ?? '*'),
      restoreCapacity: () => faults.noCapacity.clear(),
      failCreateAfterCreate: (count = 1, status = 500) => {
        faults.createFailures = { remaining: count, status };
      },
      stuckBooting: (count = 1) => {
        faults.stuckBooting = count;
      },
      preempt: async (podId) => {
        await store.exit(podId, 'preempt');
      },
      failTerminates: (count = 1, status = 500) => {
        faults.terminateFailures = { remaining: count, status };
      },
      newHostKey: async (podId) => {
        const p = store.find(podId);
        if (!p) throw new Error(`fake runpod: no pod ${podId}`);
        await p.node.newHostKey();
      },
      nextPodPull: ({ count = 1, ...o }) => {
        for (let i = 0; i < count; i++) faults.pulls.push(imagePullOf(o));
      },
    },
    registries,
    addGpuTypes: (...seeds) => {
      gpuTypes.push(...seeds.map(gpuTypeOf));
    },
    stop: async () => {
      await server.close();
      for (const p of store.pods) p.command?.stop();
      await Promise.all(store.pods.map((p) => p.node.stop()));
    },
  };
}
