// The fake's state and what changes it, free of HTTP: the inventory, the account's keys,
// instances with their real nodes, billing, the destroy log. `sync()` moves instances along
// the clock (container start → sshd listens, keys reach authorized_keys, teardowns finish);
// the server runs it before every request, a timer runs it in between, tests await it.
import { FakeRegistries } from '../private-registry';
import { randomBytes } from 'node:crypto';
import type { Clock } from './clock';
import { type FaultState, freshFaults, takeFate, takeIgnoredBid, takePull } from './faults';
import { pullDoneAt } from '../image-pull';
import {
  billRunningOrStopped,
  type InstanceRecord,
  type KeyKind,
  OCI_ERROR_MSG,
  setBillingRate,
} from './instance';
import { VastNode } from './node';
import { imageOf, refusedLogin, sessionPath, userName, type ImageCatalog } from '../images/image';
import { buildSpec, hourlyPrice, type MachineSpec, type OfferSeed, storageHourly } from './offers';
import { type InventoryEntry, searchOffers } from './offer-search';

export interface Timings {
  /** Create → `actual_status` "loading" (null before). */
  loadingAfterMs: number;
  /** Create → the container starts: sshd listens, then "running". */
  runningAfterMs: number;
  /** A created instance is absent from list and show calls for this long. */
  listVisibilityDelayMs: number;
  /** A destroyed instance is still listed (cur_state "unloaded") for this long. */
  goneVisibilityDelayMs: number;
  /** A key added after create (account or instance) reaches the node's sshd after this. */
  sshKeyPropagationMs: number;
}

export const DEFAULT_TIMINGS: Timings = {
  loadingAfterMs: 100,
  runningAfterMs: 400,
  listVisibilityDelayMs: 0,
  goneVisibilityDelayMs: 0,
  sshKeyPropagationMs: 0,
};

export interface AccountKey {
  id: number;
  key: string;
  createdAt: number;
}

export interface DestroyRecord {
  instanceId: number;
  label: string | null;
  /** Clock ms. */
  at: number;
  /** The account key, or the instance's own CONTAINER_API_KEY. */
  by: KeyKind;
}

/** What a validated create call asks for. */
export interface CreateRequest {
  image: string;
  label: string | null;
  disk: number;
  runtype: string;
  onstart: string | null;
  args: string[];
  env: Record<string, string>;
  templateHashId: string | null;
  /** The create's `price`: a bid (interruptible), or null for on-demand. */
  price: number | null;
  /** The create's `user` (docker create --user), or null: the image's own. */
  user: string | null;
}

const FIRST_INSTANCE_ID = 21_400_000;
const FIRST_KEY_ID = 51_000;

export class VastMarket {
  readonly offers = new Map<number, InventoryEntry>();
  readonly instances = new Map<number, InstanceRecord>();
  readonly accountKeys: AccountKey[] = [];
  readonly destroyLog: DestroyRecord[] = [];
  faults: FaultState = freshFaults();
  private offerOrdinal = 0;
  private nextInstanceId = FIRST_INSTANCE_ID;
  private nextKeyId = FIRST_KEY_ID;
  private running: Promise<void> | null = null;
  private readonly teardowns = new Set<Promise<void>>();
  private readonly writtenKeys = new Map<number, string>();
  private isClosed = false;
  /** Private images and the logins they take (`image_login` on create). */
  readonly registries = new FakeRegistries();
  /** What the images are (test/fakes/images); unknown ones run as root. */
  images: ImageCatalog | undefined;

  constructor(
    readonly clock: Clock,
    readonly timings: Timings,
  ) {}

  addOffers(seeds: OfferSeed[]): MachineSpec[] {
    return seeds.map((seed) => {
      const spec = buildSpec(seed, this.offerOrdinal++);
      if (this.offers.has(spec.id)) throw new Error(`fake vast: offer ${spec.id} seeded twice`);
      this.offers.set(spec.id, { spec, isRentedByUs: false, isTaken: false });
      return spec;
    });
  }

  search(body: unknown): Record<string, unknown>[] {
    const found = searchOffers(body, [...this.offers.values()], this.clock.now());
    if (this.faults.rentAwayAfterSearch > 0 && found.length > 0) {
      this.faults.rentAwayAfterSearch -= 1;
      this.rentAway(found[0]!.id as number);
    }
    return found;
  }

  /** Someone else rents the offer: it leaves the market. */
  rentAway(offerId: number): void {
    const entry = this.offers.get(offerId);
    if (!entry) throw new Error(`fake vast: no offer ${offerId} to rent away`);
    entry.isTaken = true;
  }

  /** The offer, if this account may rent it now. */
  rentableOffer(offerId: number): InventoryEntry | null {
    const entry = this.offers.get(offerId);
    if (!entry || entry.isTaken || entry.isRentedByUs || !entry.spec.rentable) return null;
    return entry;
  }

  /** The login name SSH as `user` reaches on an instance: its node's user when the
   *  container runs as `user` — the create's `user`, else the image's own (the ssh launch
   *  mode brings sshd into any image and lets in the user the container runs as) — else a
   *  name nobody has. */
  loginFor(instanceId: number, user: string): string {
    const inst = this.instances.get(instanceId);
    if (!inst) return refusedLogin(user);
    const runsAs = inst.containerUser ?? userName(imageOf(this.images, inst.image));
    return runsAs === user ? inst.node.user : refusedLogin(user);
  }

  /** Rents the offer and prepares its node (user, host key; sshd not listening yet). */
  async create(entry: InventoryEntry, req: CreateRequest): Promise<InstanceRecord> {
    entry.isRentedByUs = true; // before the first await: a concurrent create gets no_such_ask
    let node: VastNode;
    try {
      const path = sessionPath(imageOf(this.images, req.image));
      node = await VastNode.prepare(path !== undefined ? { path } : {});
    } catch (err) {
      entry.isRentedByUs = false;
      throw err;
    }
    const now = this.clock.now();
    const { fate, statusMsg } = takeFate(this.faults);
    // Without a price Vast.ai rents on-demand, whatever the search asked (vast-cli PR #403);
    // the knob drops the price the way a client that forgets it would.
    const bid = req.price !== null && !takeIgnoredBid(this.faults) ? req.price : null;
    const loadingAt = now + this.timings.loadingAfterMs;
    const pull = takePull(this.faults);
    const pulledAt = pull ? (pullDoneAt(pull, loadingAt) ?? Infinity) : -Infinity;
    const inst: InstanceRecord = {
      id: this.nextInstanceId++,
      spec: entry.spec,
      apiKey: randomBytes(32).toString('hex'),
      label: req.label,
      image: req.image,
      runtype: req.runtype,
      containerUser: req.user,
      onstart: req.onstart,
      args: req.args,
      env: req.env,
      portShift: takeCount(this.faults, 'mapPortsAway') ? 1 : 0,
      templateHashId: req.templateHashId,
      disk: req.disk,
      dphTotal:
        bid === null
          ? hourlyPrice(entry.spec, req.disk)
          : bid + storageHourly(entry.spec, req.disk),
      bid,
      isOutbid: bid !== null && bid < entry.spec.min_bid,
      isWaitingForGpus: false,
      createdAt: now,
      visibleAt: now + this.timings.listVisibilityDelayMs,
      loadingAt,
      startAt: Math.max(now + this.timings.runningAfterMs, loadingAt, pulledAt),
      pull,
      fate,
      fateMsg: fate === 'run' || fate === 'stay_loading' ? null : (statusMsg ?? OCI_ERROR_MSG),
      forced: null,
      intended: 'running',
      runningSince: null,
      startError: null,
      keys: this.accountKeys.map((k) => ({
        id: k.id,
        key: k.key,
        source: 'account' as const,
        effectiveAt: now,
        removedAt: null,
      })),
      destroyedAt: null,
      destroyedBy: null,
      goneAt: null,
      node,
      jupyterToken: randomBytes(32).toString('hex'),
      billing: [],
    };
    billRunningOrStopped(inst, now);
    node.writeEnv({
      ...containerEnv(inst.env),
      CONTAINER_ID: String(inst.id),
      CONTAINER_API_KEY: inst.apiKey,
    });
    this.instances.set(inst.id, inst);
    this.writeKeys(inst, now);
    return inst;
  }

  /** Not destroyed, or destroyed but still listed. */
  exists(id: number): InstanceRecord | null {
    const inst = this.instances.get(id);
    const now = this.clock.now();
    if (!inst || (inst.goneAt !== null && now >= inst.goneAt)) return null;
    return inst;
  }

  /** What list and show calls see. */
  listed(): InstanceRecord[] {
    const now = this.clock.now();
    return [...this.instances.values()].filter(
      (i) => now >= i.visibleAt && (i.goneAt === null || now < i.goneAt),
    );
  }

  destroy(inst: InstanceRecord, by: KeyKind): void {
    if (inst.destroyedAt !== null) return;
    const now = this.clock.now();
    inst.destroyedAt = now;
    inst.destroyedBy = by;
    inst.goneAt = now + this.timings.goneVisibilityDelayMs;
    setBillingRate(inst, now, null);
    const entry = this.offers.get(inst.spec.id);
    if (entry) entry.isRentedByUs = false;
    this.destroyLog.push({ instanceId: inst.id, label: inst.label, at: now, by });
    this.track(inst.node.stop());
  }

  /** PUT state stopped/running. An outbid instance stays stopped until its bid wins. */
  async setIntended(inst: InstanceRecord, state: 'running' | 'stopped'): Promise<void> {
    if (inst.intended === state) return;
    if (state === 'running' && this.faults.gpusTakenOnStart > 0) {
      this.faults.gpusTakenOnStart--;
      inst.isWaitingForGpus = true;
    }
    inst.intended = state;
    await this.settle(inst);
  }

  /** The machine's minimum bid becomes `minBid`: bid instances on it below that are stopped
   *  (disk kept, billing storage only), those at or above it run again. */
  async setMinBid(spec: MachineSpec, minBid: number): Promise<void> {
    spec.min_bid = minBid;
    for (const inst of this.instances.values()) {
      if (inst.spec !== spec || inst.bid === null || inst.destroyedAt !== null) continue;
      inst.isOutbid = inst.bid < minBid;
      await this.settle(inst);
    }
  }

  /** change bid: the new price bills from now; an outbid instance whose bid now meets the
   *  minimum runs again. */
  async changeBid(inst: InstanceRecord, price: number): Promise<void> {
    inst.bid = price;
    inst.dphTotal = price + storageHourly(inst.spec, inst.disk);
    inst.isOutbid = price < inst.spec.min_bid;
    await this.settle(inst, true);
  }

  /** Bills and runs the instance as its intent and bid say now. */
  private async settle(inst: InstanceRecord, rateChanged = false): Promise<void> {
    const now = this.clock.now();
    const isStopped = inst.intended === 'stopped' || inst.isOutbid || inst.isWaitingForGpus;
    const open = inst.billing.at(-1);
    const billedState = open && open.to === null ? open.state : null;
    if (rateChanged || billedState !== (isStopped ? 'stopped' : 'running'))
      billRunningOrStopped(inst, now);
    // A stop asked for ends the container's processes (its disk stays); an outbid one only
    // stops answering here (known gap: on Vast.ai its processes end too).
    if (isStopped && !inst.isOutbid) await inst.node.halt();
    else if (isStopped) await inst.node.pause();
    else if (inst.runningSince !== null) await inst.node.listen();
  }

  /** Forces a status (a host that dies, a container that exits). */
  async force(inst: InstanceRecord, status: string, msg: string | null): Promise<void> {
    inst.forced = { status, msg };
    if (status !== 'unknown') await inst.node.pause();
  }

  addAccountKey(key: string): AccountKey {
    const now = this.clock.now();
    const k = { id: this.nextKeyId++, key: key.trim(), createdAt: now };
    this.accountKeys.push(k);
    // create_ssh_key.yaml: "The key will be automatically added to all your current instances."
    for (const inst of this.instances.values())
      if (inst.destroyedAt === null) inst.keys.push(this.pendingKey(k.id, k.key, 'account', now));
    return k;
  }

  /** Removes the key from the account; instances keep what they were given (unconfirmed). */
  deleteAccountKey(id: number): boolean {
    const i = this.accountKeys.findIndex((k) => k.id === id);
    if (i < 0) return false;
    this.accountKeys.splice(i, 1);
    return true;
  }

  attachKey(inst: InstanceRecord, key: string): void {
    inst.keys.push(this.pendingKey(this.nextKeyId++, key.trim(), 'instance', this.clock.now()));
  }

  detachKey(inst: InstanceRecord, keyId: number): boolean {
    const k = inst.keys.find((x) => x.id === keyId && x.removedAt === null);
    if (!k) return false;
    k.removedAt = this.clock.now() + this.timings.sshKeyPropagationMs;
    return true;
  }

  /** Moves every instance along the clock; resolves when nothing due is left undone. */
  sync = (): Promise<void> => {
    if (this.running) return this.running.then(this.sync, this.sync);
    this.running = this.syncOnce().finally(() => (this.running = null));
    return this.running;
  };

  /** Called by the pump timer: never queues behind a running sync. */
  poke(): void {
    if (!this.running && !this.isClosed) this.sync().catch(() => {});
  }

  async close(): Promise<void> {
    this.isClosed = true;
    await this.running?.catch(() => {});
    for (const inst of this.instances.values()) this.track(inst.node.stop());
    await Promise.all(this.teardowns);
  }

  private async syncOnce(): Promise<void> {
    for (const inst of this.instances.values()) {
      if (this.isClosed) return;
      if (inst.destroyedAt !== null) continue;
      const now = this.clock.now();
      this.writeKeys(inst, now);
      const isDue =
        inst.fate === 'run' &&
        inst.intended === 'running' &&
        !inst.isOutbid &&
        inst.forced === null &&
        inst.startError === null &&
        inst.runningSince === null &&
        now >= inst.startAt;
      if (!isDue) continue;
      try {
        await inst.node.listen();
        inst.runningSince = this.clock.now();
      } catch (err) {
        inst.startError = `sshd did not start: ${(err as Error).message}`;
      }
    }
    await Promise.all(this.teardowns);
  }

  private writeKeys(inst: InstanceRecord, now: number): void {
    const keys = inst.keys
      .filter((k) => k.effectiveAt <= now && (k.removedAt === null || now < k.removedAt))
      .map((k) => k.key);
    const text = [...new Set(keys)].join('\n');
    if (this.writtenKeys.get(inst.id) === text) return;
    inst.node.setAuthorizedKeys([...new Set(keys)]);
    this.writtenKeys.set(inst.id, text);
  }

  private pendingKey(id: number, key: string, source: 'account' | 'instance', now: number) {
    return {
      id,
      key,
      source,
      effectiveAt: now + this.timings.sshKeyPropagationMs,
      removedAt: null,
    };
  }

  private track(p: Promise<void>): void {
    const tracked = p.finally(() => this.teardowns.delete(tracked));
    this.teardowns.add(tracked);
  }
}

/** Docker's -e variables: the env entries that are not "-p …" / "-h" options. */
/** Consumes one of a counting knob's uses; true when there was one. */
function takeCount(f: FaultState, knob: 'mapPortsAway'): boolean {
  if (f[knob] <= 0) return false;
  f[knob]--;
  return true;
}

function containerEnv(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('-')));
}
