// One rented instance: its record in the fake, the status it shows at a given time, and
// the object `GET /api/v0/instances[/{id}]/` returns for it (fields and units from vast-cli's
// show_instance.yaml / show_instances.yaml: `extra_env` a list of [key, value] pairs,
// `ports` docker's {"22/tcp": [{HostIp, HostPort}]}, dates in epoch seconds).
import type { VastNode } from './node';
import { pullLine, type ImagePull } from '../image-pull';
import { type MachineSpec, storageHourly } from './offers';

/** How the container start ends: as asked, or one of the failures Vast shows. */
export type Fate = 'run' | 'stay_loading' | 'exited' | 'offline' | 'created';

/** Which kind of API key made a call. */
export type KeyKind = 'account' | 'instance';

/** A common real start failure (nvidia-container-cli on a host whose driver went away). */
export const OCI_ERROR_MSG =
  'Error response from daemon: failed to create task for container: failed to create shim ' +
  'task: OCI runtime create failed: runc create failed: unable to start container process: ' +
  'error during container init: error running hook #0: error running hook: exit status 1, ' +
  "stdout: , stderr: Auto-detected mode as 'legacy'\nnvidia-container-cli: initialization " +
  'error: nvml error: driver not loaded: unknown';

export interface InstanceKey {
  id: number;
  key: string;
  source: 'account' | 'instance';
  /** Clock ms from which the node's sshd accepts it. */
  effectiveAt: number;
  /** Clock ms from which it no longer does (detached), or null. */
  removedAt: number | null;
}

/** What a billing segment pays for: the whole instance, or its disk only (stopped). */
export type BillingState = 'running' | 'stopped';

interface BillingSegment {
  from: number;
  to: number | null;
  /** $/hour. */
  rate: number;
  state: BillingState;
}

export interface InstanceRecord {
  id: number;
  spec: MachineSpec;
  /** CONTAINER_API_KEY: accepted by the API for this instance only. */
  apiKey: string;
  label: string | null;
  image: string;
  runtype: string;
  /** The create's `user` (docker create --user), or null: the image's own user. */
  containerUser: string | null;
  onstart: string | null;
  args: string[];
  /** As the create call sent it, "-p 8080:8080": "1" entries included. */
  env: Record<string, string>;
  /** Where each `-p` port is reported mapped: itself (the fake's nodes share this host's
   *  loopback), or, under the `mapPortsAway` knob, a port nothing listens on. */
  portShift: number;
  templateHashId: string | null;
  disk: number;
  /** $/hour while running: the GPU part (the bid, for a bid) plus storage. */
  dphTotal: number;
  /** An interruptible instance's bid, $/h for the machine (`price` at create), else null. */
  bid: number | null;
  /** Stopped because its bid fell below the machine's min_bid; runs again once it meets it. */
  isOutbid: boolean;
  /** Asked to run again after a stop, but its machine's GPUs went to another renter
   *  meanwhile: it stays stopped (billing storage) until they are free. */
  isWaitingForGpus: boolean;
  createdAt: number;
  /** Before this, list and show calls do not see the instance. */
  visibleAt: number;
  loadingAt: number;
  /** When the container is due to start (Infinity: never, its pull stalls). */
  startAt: number;
  /** How its image is pulled, from `loadingAt` (the `nextInstancePull` knob); null: at once. */
  pull: ImagePull | null;
  fate: Fate;
  fateMsg: string | null;
  forced: { status: string; msg: string | null } | null;
  intended: 'running' | 'stopped';
  /** Clock ms at which sshd first listened (the container ran), or null. */
  runningSince: number | null;
  startError: string | null;
  keys: InstanceKey[];
  destroyedAt: number | null;
  destroyedBy: KeyKind | null;
  /** After this, a destroyed instance is absent from list and show calls. */
  goneAt: number | null;
  node: VastNode;
  jupyterToken: string;
  billing: BillingSegment[];
}

export function actualStatus(inst: InstanceRecord, now: number): string | null {
  if (inst.forced) return inst.forced.status;
  if (inst.startError) return 'exited';
  if (inst.intended === 'stopped' || inst.isOutbid || inst.isWaitingForGpus) return 'stopped';
  if (now < inst.loadingAt) return null;
  if (inst.runningSince !== null) return 'running';
  if (now < inst.startAt || inst.fate === 'run' || inst.fate === 'stay_loading') return 'loading';
  return inst.fate;
}

function statusMsg(inst: InstanceRecord, status: string | null, now: number): string | null {
  if (inst.forced) return inst.forced.msg;
  if (inst.startError) return inst.startError;
  if (inst.isWaitingForGpus)
    return 'waiting for the machine: its GPUs are rented by another instance';
  if (status === null || status === 'stopped') return null;
  if (status === 'loading')
    return inst.pull
      ? `${inst.image}: ${pullLine(inst.pull, inst.loadingAt, now)}`
      : `Pulling image ${inst.image}`;
  if (status === 'running') return `success, running ${inst.image.replace(/:/g, '_')}/ssh`;
  return inst.fateMsg;
}

/** Starts, changes, pauses or ends billing at `now` (stopped instances pay for storage). */
export function setBillingRate(
  inst: InstanceRecord,
  now: number,
  rate: number | null,
  state: BillingState = 'running',
): void {
  const open = inst.billing.at(-1);
  if (open && open.to === null) open.to = now;
  if (rate !== null) inst.billing.push({ from: now, to: null, rate, state });
}

/** The rate of a live instance now: all of it running, its disk while stopped. */
export function billRunningOrStopped(inst: InstanceRecord, now: number): void {
  const isStopped = inst.intended === 'stopped' || inst.isOutbid || inst.isWaitingForGpus;
  if (isStopped) setBillingRate(inst, now, storageRate(inst), 'stopped');
  else setBillingRate(inst, now, inst.dphTotal, 'running');
}

export function storageRate(inst: InstanceRecord): number {
  return storageHourly(inst.spec, inst.disk);
}

export function accruedUsd(inst: InstanceRecord, now: number, state?: BillingState): number {
  return inst.billing
    .filter((s) => state === undefined || s.state === state)
    .reduce((sum, s) => sum + (s.rate * ((s.to ?? now) - s.from)) / 3_600_000, 0);
}

/** The instance object of the API at `now`. */
export function instanceView(inst: InstanceRecord, now: number): Record<string, unknown> {
  const s = inst.spec;
  const status = actualStatus(inst, now);
  const isRunning = status === 'running';
  const port = inst.node.port;
  const startS = inst.createdAt / 1000;
  const diskHour = storageRate(inst);
  // A bid instance bills its bid: that is its dph_base (renter autobidders compare it with
  // min_bid to see they were outbid).
  const gpuHour = inst.bid ?? s.dph_base;
  const pricing = {
    gpuCostPerHour: gpuHour,
    diskHour,
    totalHour: inst.dphTotal,
    discountTotalHour: 0,
    discountedTotalPerHour: inst.dphTotal,
  };
  const isDestroyed = inst.destroyedAt !== null;
  // Outbid: "cur_state == intended_status == next_state == stopped" (dstack's check).
  const intended = inst.isOutbid ? 'stopped' : inst.intended;
  return {
    id: inst.id,
    actual_status: status,
    intended_status: isDestroyed ? 'stopped' : intended,
    cur_state: isDestroyed ? 'unloaded' : inst.isWaitingForGpus ? 'stopped' : intended,
    next_state: isDestroyed ? 'unloaded' : intended,
    label: inst.label,
    template_id: null,
    template_hash_id: inst.templateHashId,
    template_name: null,
    image_uuid: inst.image,
    image_args: inst.args,
    image_runtype: inst.runtype,
    extra_env: Object.entries(inst.env),
    onstart: inst.onstart,
    jupyter_token: inst.jupyterToken,
    status_msg: statusMsg(inst, status, now),
    local_ipaddrs: '127.0.0.1 \n',
    ssh_host: '127.0.0.1',
    ssh_idx: '1',
    ssh_port: port,
    machine_dir_ssh_port: port,
    machine_id: s.machine_id,
    bundle_id: s.bundle_id,
    start_date: startS,
    end_date: startS + s.duration,
    uptime_mins:
      inst.runningSince === null ? null : Math.max(0, (now - inst.runningSince) / 60_000),
    duration: startS + s.duration - now / 1000,
    cpu_arch: s.cpu_arch,
    cpu_cores: s.cpu_cores,
    cpu_cores_effective: s.cpu_cores_effective,
    cpu_name: s.cpu_name,
    cpu_ram: s.cpu_ram,
    cpu_util: 0,
    mem_limit: null,
    mem_usage: null,
    vmem_usage: null,
    gpu_name: s.gpu_name,
    gpu_arch: s.gpu_arch,
    gpu_totalram: s.gpu_ram,
    gpu_ram: s.gpu_ram,
    gpu_util: isRunning ? 0 : null,
    gpu_temp: isRunning ? 34 : null,
    gpu_frac: s.gpu_frac,
    gpu_lanes: s.gpu_lanes,
    gpu_mem_bw: s.gpu_mem_bw,
    bw_nvlink: s.bw_nvlink,
    disk_name: s.disk_name,
    disk_space: inst.disk,
    disk_bw: s.disk_bw,
    disk_util: 0,
    disk_usage: 0,
    direct_port_count: s.direct_port_count,
    direct_port_start: port,
    direct_port_end: port,
    // show_instances v1: "Port mappings. Only present on running instances."
    // Each `-p P:P` of the create's env is mapped too: the fake's nodes share this host's
    // loopback, so a mapped port lands on itself (the identity mapping).
    ports: isRunning
      ? {
          '22/tcp': [{ HostIp: '0.0.0.0', HostPort: String(port) }],
          ...Object.fromEntries(
            Object.keys(inst.env)
              .map((k) => /^-p (\d+):\d+$/.exec(k)?.[1])
              .filter((p): p is string => p !== undefined)
              .map((p) => [
                `${p}/tcp`,
                [{ HostIp: '0.0.0.0', HostPort: String(Number(p) + inst.portShift) }],
              ]),
          ),
        }
      : {},
    static_ip: s.static_ip,
    public_ipaddr: '127.0.0.1',
    geolocation: s.geolocation,
    verification: s.verification,
    rentable: s.rentable,
    host_id: s.host_id,
    hosting_type: s.hosting_type,
    min_bid: s.min_bid,
    is_bid: inst.bid !== null,
    dph_base: gpuHour,
    dph_total: inst.dphTotal,
    dlperf: s.dlperf,
    dlperf_per_dphtotal: s.dlperf / inst.dphTotal,
    flops_per_dphtotal: s.total_flops / inst.dphTotal,
    total_flops: s.total_flops,
    score: s.score,
    reliability2: s.reliability,
    os_version: s.os_version,
    mobo_name: s.mobo_name,
    pci_gen: s.pci_gen,
    pcie_bw: s.pcie_bw,
    num_gpus: s.num_gpus,
    logo: '/static/logos/vastai_small2.png',
    webpage: null,
    search: pricing,
    instance: pricing,
    storage_cost: s.storage_cost,
    storage_total_cost: diskHour,
    vram_costperhour: inst.dphTotal / ((s.gpu_ram * s.num_gpus) / 1024),
    credit_balance: null,
    credit_discount: null,
    credit_discount_max: s.credit_discount_max,
    client_run_time: 1.1,
    host_run_time: s.duration,
    external: s.external,
    time_remaining: '',
    time_remaining_isbid: '',
    country_code: s.geolocation.split(',').pop()!.trim(),
    volume_info: [],
  };
}
