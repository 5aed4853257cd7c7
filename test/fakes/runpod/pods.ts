// The fake's pods and what RunPod does with them: create (on-demand or interruptible), the
// boot (runtime null until the node's sshd listens), stop/resume, preemption, terminate,
// and billing from create to terminate while RUNNING.
import { randomBytes } from 'node:crypto';
import { chownSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VastNode } from '../vast/node';
import type { FaultState } from './faults';
import { GraphqlError } from './graphql';
import { cloudOf, type GpuType } from './gpu-types';
import { pullDoneAt, pullLine, type ImagePull } from '../image-pull';
import { ContainerCommand } from './container-command';
import {
  imageOf,
  refusedLogin,
  sessionPath,
  userName,
  type ImageSpec,
  type ImageCatalog,
} from '../images/image';

/** Relative to the node user's HOME: the pod environment RunPod gives PID 1 (RUNPOD_POD_ID,
 *  RUNPOD_API_KEY, the create's env), in /proc/<pid>/environ format (KEY=VALUE, NUL-ended). */
export const RUNPOD_ENV_FILE = '.runpod-env';

export const NO_CAPACITY_MESSAGE =
  'There are no longer any instances available with the requested specifications. Please refresh and try again.';
export const NOT_FOUND_TO_TERMINATE = 'pod not found to terminate';

export type DesiredStatus = 'RUNNING' | 'EXITED' | 'TERMINATED';

export interface PodRecord {
  id: string;
  name: string;
  imageName: string;
  gpuType: GpuType;
  gpuCount: number;
  cloudType: 'SECURE' | 'COMMUNITY';
  interruptible: boolean;
  bidPerGpu: number | null;
  costPerHr: number;
  /** The create's env, as sent. */
  env: Record<string, string>;
  ports: string;
  containerDiskInGb: number;
  desiredStatus: DesiredStatus;
  /** Whether `runtime` is answered (the node's sshd listens). */
  hasRuntime: boolean;
  /** When the runtime appears (ms); null: never (stuck booting, or a pull that stalls). */
  bootAt: number | null;
  /** How its image is pulled from create (the `nextPodPull` knob); null: within `bootMs`. */
  pull: ImagePull | null;
  createdAt: number;
  terminatedAt: number | null;
  terminatedBy: 'account' | 'pod' | null;
  /** RUNPOD_API_KEY: accepted for this pod only, until it is terminated. */
  apiKey: string;
  machineId: string;
  node: VastNode;
  /** Billed ms before the current RUNNING stretch, and when that began (null: not running). */
  billedMs: number;
  runningSince: number | null;
  /** Why it went EXITED, for tests. */
  exitedBy: 'stop' | 'preempt' | null;
  /** The container registry auth it was created with (registry-auths.ts). */
  registryAuthId?: string | null;
  /** Docker's refusal of its image's pull: it never boots, and its status says so. */
  pullError?: string | null;
  /** The container's command as the create sent it ('' : the image's own). */
  dockerArgs: string;
  /** What the image is (test/fakes/images). */
  image: ImageSpec;
  /** The command running in the container, while it runs. */
  command: ContainerCommand | null;
}

export interface CreateInput {
  name?: unknown;
  imageName?: unknown;
  gpuTypeId?: unknown;
  gpuCount?: unknown;
  cloudType?: unknown;
  containerDiskInGb?: unknown;
  ports?: unknown;
  supportPublicIp?: unknown;
  env?: unknown;
  bidPerGpu?: unknown;
  containerRegistryAuthId?: unknown;
  dockerArgs?: unknown;
}

export class PodStore {
  readonly pods: PodRecord[] = [];

  constructor(
    private readonly gpuTypes: GpuType[],
    private readonly faults: FaultState,
    private readonly bootMs: number,
    private readonly now: () => number,
    private readonly images?: ImageCatalog,
  ) {}

  find(id: unknown): PodRecord | undefined {
    return typeof id === 'string' ? this.pods.find((p) => p.id === id) : undefined;
  }

  live(): PodRecord[] {
    return this.pods.filter((p) => p.desiredStatus !== 'TERMINATED');
  }

  async create(input: CreateInput, interruptible: boolean): Promise<PodRecord> {
    if (!input || typeof input !== 'object')
      throw new GraphqlError('input is required', 'BAD_USER_INPUT');
    const { name, imageName, gpuTypeId } = input;
    const gpuCount = input.gpuCount ?? 1;
    if (typeof imageName !== 'string' || imageName === '')
      throw new GraphqlError('imageName is required', 'BAD_USER_INPUT');
    if (typeof gpuTypeId !== 'string')
      throw new GraphqlError('gpuTypeId is required', 'BAD_USER_INPUT');
    if (typeof gpuCount !== 'number' || !Number.isInteger(gpuCount) || gpuCount < 1)
      throw new GraphqlError('gpuCount must be a positive integer', 'BAD_USER_INPUT');
    const cloudType = input.cloudType ?? 'ALL';
    if (cloudType !== 'SECURE' && cloudType !== 'COMMUNITY' && cloudType !== 'ALL')
      throw new GraphqlError(
        `Enum "CloudTypeEnum" cannot represent value: ${JSON.stringify(cloudType)}`,
        'BAD_USER_INPUT',
      );
    const type = this.gpuTypes.find((t) => t.id === gpuTypeId);
    const cloud = type
      ? cloudOf(type, cloudType === 'ALL' ? undefined : cloudType === 'SECURE')
      : null;
    const inStock = cloud !== null && (cloud.stock === undefined || cloud.stock !== null);
    if (
      !type ||
      !cloud ||
      !inStock ||
      gpuCount > type.maxGpuCount ||
      this.faults.noCapacity.has('*') ||
      this.faults.noCapacity.has(type.id)
    )
      throw new GraphqlError(NO_CAPACITY_MESSAGE);
    let bidPerGpu: number | null = null;
    if (interruptible) {
      if (cloud.spotPrice === null || cloud.spotPrice === undefined)
        throw new GraphqlError(NO_CAPACITY_MESSAGE);
      if (typeof input.bidPerGpu !== 'number' || !(input.bidPerGpu > 0))
        throw new GraphqlError('bidPerGpu is required', 'BAD_USER_INPUT');
      if (input.bidPerGpu < cloud.spotPrice)
        throw new GraphqlError(
          `Your bid of $${input.bidPerGpu}/gpu/hr is below the minimum bid of $${cloud.spotPrice}`,
        );
      bidPerGpu = input.bidPerGpu;
    }
    const env = envInput(input.env);
    const image = imageOf(this.images, imageName);
    const path = sessionPath(image);
    const node = await VastNode.prepare(path !== undefined ? { path } : {});
    const now = this.now();
    const stuck = this.faults.stuckBooting > 0;
    if (stuck) this.faults.stuckBooting -= 1;
    const pull = this.faults.pulls.shift() ?? null;
    const pulledAt = pull ? pullDoneAt(pull, now) : now;
    const pod: PodRecord = {
      id: randomId(14),
      name: typeof name === 'string' ? name : '',
      imageName,
      gpuType: type,
      gpuCount,
      cloudType: type.secure === cloud ? 'SECURE' : 'COMMUNITY',
      interruptible,
      bidPerGpu,
      costPerHr: round((bidPerGpu ?? cloud.price) * gpuCount),
      env,
      ports: typeof input.ports === 'string' ? input.ports : '',
      containerDiskInGb: typeof input.containerDiskInGb === 'number' ? input.containerDiskInGb : 20,
      desiredStatus: 'RUNNING',
      hasRuntime: false,
      bootAt: stuck || pulledAt === null ? null : Math.max(now + this.bootMs, pulledAt),
      pull,
      createdAt: now,
      terminatedAt: null,
      terminatedBy: null,
      apiKey: `rpa_${randomBytes(20).toString('hex').toUpperCase()}`,
      machineId: randomId(12),
      node,
      billedMs: 0,
      runningSince: now,
      exitedBy: null,
      dockerArgs: typeof input.dockerArgs === 'string' ? input.dockerArgs : '',
      image,
      command: null,
    };
    writeEnvFile(node, containerEnv(pod));
    this.pods.push(pod);
    return pod;
  }

  /** Pods whose boot is due start their container: the create's `dockerArgs`, run for real
   *  (container-command.ts), or else the image's own command — which, for an image that
   *  starts sshd itself (RunPod's), puts PUBLIC_KEY in authorized_keys and listens. Then
   *  the runtime is answered. */
  async sync(): Promise<void> {
    const now = this.now();
    for (const p of this.pods) {
      if (p.desiredStatus !== 'RUNNING' || p.hasRuntime || p.bootAt === null || now < p.bootAt)
        continue;
      if (p.dockerArgs) {
        p.command?.stop();
        p.command = new ContainerCommand(p.node, p.image, p.dockerArgs, containerEnv(p));
      } else if (p.image.startsSshd) {
        p.node.setAuthorizedKeys((p.env.PUBLIC_KEY ?? '').split('\n').filter((k) => k.trim()));
        await p.node.listen();
      }
      p.hasRuntime = true;
    }
  }

  /** The login name SSH as `user` maps to on this pod: its node's user when the container
   *  lets `user` in (the image's own user; root too when the image runs as root or its user
   *  may sudo, so the start command could install root's key), else a name nobody has. */
  loginFor(podId: string, user: string): string {
    const pod = this.find(podId);
    if (!pod) return refusedLogin(user);
    const own = userName(pod.image);
    const accepted = own === 'root' || pod.image.sudo ? [own, 'root'] : [own];
    return accepted.includes(user) ? pod.node.user : refusedLogin(user);
  }

  terminate(id: unknown, by: 'account' | 'pod'): void {
    const pod = this.find(id);
    if (!pod || pod.desiredStatus === 'TERMINATED') throw new GraphqlError(NOT_FOUND_TO_TERMINATE);
    this.stopBilling(pod);
    pod.desiredStatus = 'TERMINATED';
    pod.hasRuntime = false;
    pod.terminatedAt = this.now();
    pod.terminatedBy = by;
    pod.command?.stop();
    pod.command = null;
    // Answered at once; the container goes after (RunPod tears down asynchronously, and a pod
    // terminating itself gets its answer). stop() of the fake waits for it.
    void pod.node.stop();
  }

  /** podStop, or an interruptible pod taken back: EXITED, every process of the node ends,
   *  connections are refused; the pod stays listed. */
  async exit(id: unknown, by: 'stop' | 'preempt'): Promise<PodRecord> {
    const pod = this.find(id);
    if (!pod || pod.desiredStatus === 'TERMINATED') throw new GraphqlError('pod not found');
    if (by === 'preempt' && !pod.interruptible)
      throw new Error(`fake runpod: pod ${pod.id} is not interruptible`);
    this.stopBilling(pod);
    pod.desiredStatus = 'EXITED';
    pod.hasRuntime = false;
    pod.exitedBy = by;
    pod.command?.stop();
    pod.command = null;
    await pod.node.halt();
    return pod;
  }

  resume(id: unknown): PodRecord {
    const pod = this.find(id);
    if (!pod || pod.desiredStatus === 'TERMINATED') throw new GraphqlError('pod not found');
    if (pod.desiredStatus === 'RUNNING') return pod;
    pod.desiredStatus = 'RUNNING';
    pod.exitedBy = null;
    pod.runningSince = this.now();
    pod.bootAt = this.now() + this.bootMs;
    return pod;
  }

  billedMs(pod: PodRecord): number {
    return pod.billedMs + (pod.runningSince !== null ? this.now() - pod.runningSince : 0);
  }

  private stopBilling(pod: PodRecord): void {
    if (pod.runningSince !== null) pod.billedMs += this.now() - pod.runningSince;
    pod.runningSince = null;
  }
}

/** The GraphQL `Pod` object (graphql-spec.runpod.io; runpod-python queries/pods.py). */
export function podView(p: PodRecord, now: number): Record<string, unknown> {
  const publicSsh = /(^|,)\s*22\/tcp\s*(,|$)/.test(p.ports);
  return {
    id: p.id,
    name: p.name,
    desiredStatus: p.desiredStatus,
    lastStatusChange: lastStatusChange(p, now),
    imageName: p.imageName,
    env: Object.entries(p.env).map(([k, v]) => `${k}=${v}`),
    costPerHr: p.costPerHr,
    adjustedCostPerHr: p.costPerHr,
    gpuCount: p.gpuCount,
    vcpuCount: 8 * p.gpuCount,
    memoryInGb: 30 * p.gpuCount,
    containerDiskInGb: p.containerDiskInGb,
    volumeInGb: 0,
    volumeMountPath: '/workspace',
    machineId: p.machineId,
    podType: p.interruptible ? 'INTERRUPTABLE' : 'RESERVED',
    ports: p.ports,
    dockerArgs: p.dockerArgs,
    uptimeSeconds: p.hasRuntime ? Math.floor((now - p.createdAt) / 1000) : 0,
    machine: {
      gpuDisplayName: p.gpuType.displayName,
      podHostId: `${p.id}-${p.machineId.slice(0, 8)}`,
    },
    runtime: p.hasRuntime
      ? {
          uptimeInSeconds: Math.floor((now - (p.bootAt ?? now)) / 1000),
          ports: publicSsh
            ? [
                {
                  ip: '127.0.0.1',
                  isIpPublic: true,
                  privatePort: 22,
                  publicPort: p.node.port,
                  type: 'tcp',
                },
              ]
            : [],
          gpus: Array.from({ length: p.gpuCount }, (_, i) => ({
            id: `GPU-${p.id}-${i}`,
            gpuUtilPercent: 0,
            memoryUtilPercent: 0,
          })),
          container: { cpuPercent: 0, memoryPercent: 0 },
        }
      : null,
  };
}

/** A refused pull's error; "Rented by User: <date>" (REST v1's example); or — unconfirmed: RunPod's API documents
 *  no pull progress — the pull's progress while a modelled pull has no runtime yet. */
function lastStatusChange(p: PodRecord, now: number): string {
  if (p.pullError) return `error pulling image: ${p.pullError}`;
  if (p.pull && p.desiredStatus === 'RUNNING' && !p.hasRuntime)
    return `Pulling image ${p.imageName}: ${pullLine(p.pull, p.createdAt, now)}`;
  return `Rented by User: ${new Date(p.createdAt).toUTCString()}`;
}

/** What RunPod gives the container's PID 1: the create's env and the pod's own variables. */
function containerEnv(pod: PodRecord): Record<string, string> {
  return {
    ...pod.env,
    RUNPOD_POD_ID: pod.id,
    RUNPOD_API_KEY: pod.apiKey,
    RUNPOD_GPU_COUNT: String(pod.gpuCount),
  };
}

function envInput(raw: unknown): Record<string, string> {
  const env: Record<string, string> = {};
  if (raw === undefined || raw === null) return env;
  if (!Array.isArray(raw))
    throw new GraphqlError('env must be a list of {key, value}', 'BAD_USER_INPUT');
  for (const item of raw) {
    const e = item as { key?: unknown; value?: unknown };
    if (typeof e?.key !== 'string' || typeof e.value !== 'string')
      throw new GraphqlError('env entries are {key: String!, value: String!}', 'BAD_USER_INPUT');
    env[e.key] = e.value;
  }
  return env;
}

function writeEnvFile(node: VastNode, env: Record<string, string>): void {
  const file = join(node.home, RUNPOD_ENV_FILE);
  const { uid, gid } = statSync(node.home);
  writeFileSync(
    file,
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}\0`)
      .join(''),
    { mode: 0o600 },
  );
  chownSync(file, uid, gid);
}

function randomId(n: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
