// A local Vast.ai API for tests, whose instances are real nodes (sshd + a throw-away user).
// See README.md for the endpoints, the shapes and where each comes from.
//
//   const vast = await startFakeVast({ offers: [{ gpu_name: 'RTX 4090' }], clock });
//   fetch(`${vast.url}/api/v0/bundles/`, { method: 'POST', headers: bearer(vast.apiKey), … })
//   vast.faults.rateLimit({ next: 5 }); vast.state.calls(); await vast.stop();
//
// Needs root (useradd, sshd), like test/helpers/sshd.ts.
import type { FakeRegistries } from '../private-registry';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { accountRoutes } from './account-routes';
import { type Clock, systemClock } from './clock';
import {
  armHold,
  armRateLimit,
  type CallHold,
  type DestroyFailureOptions,
  freshFaults,
  type HeldCall,
  type RateLimitOptions,
  releaseHolds,
} from './faults';
import { accruedUsd, actualStatus, type Fate, instanceView, type InstanceRecord } from './instance';
import { instanceRoutes } from './instance-routes';
import { imagePullOf, type ImagePullOptions } from '../image-pull';
import {
  type AccountKey,
  DEFAULT_TIMINGS,
  type DestroyRecord,
  type Timings,
  VastMarket,
} from './market';
import type { MachineSpec, OfferSeed } from './offers';
import { type CallRecord, startServer } from './server';

import type { ImageCatalog } from '../images/image';
export { ManualClock, systemClock, type Clock } from './clock';
export { OCI_ERROR_MSG, type Fate, type KeyKind } from './instance';
export { VAST_ENV_FILE } from './node';
export { RATE_LIMIT_TEXT, type CallRecord, type KeyUsed } from './server';
export type { AccountKey, DestroyRecord, Timings } from './market';
export type { MachineSpec, OfferSeed } from './offers';
export type { CallHold, DestroyFailureOptions, HeldCall, RateLimitOptions } from './faults';
export type { ImagePullOptions } from '../image-pull';

export interface FakeVastOptions {
  /** The account's API key (default: 64 random hex characters, like Vast's). */
  apiKey?: string;
  /** The initial inventory; more with addOffers(). */
  offers?: OfferSeed[];
  /** Public keys registered on the account before the first call. */
  accountSshKeys?: string[];
  /** Drives statuses, visibility, key propagation and billing (default: the system clock). */
  clock?: Clock;
  timings?: Partial<Timings>;
  /** Real-time period of the background sync between requests, ms (0: only on demand). */
  pumpMs?: number;
  /** What the images are (their user; minimal ones have no node, python or curl); unknown
   *  images run as root. `startFakeRegistry(…).catalog` describes the same images. */
  images?: ImageCatalog;
}

export interface NodeInfo {
  /** The Unix user sessions run as (real Vast: root; here a throw-away `tnd…` user). */
  user: string;
  home: string;
  /** The port sshd listens on (ssh_port and ports["22/tcp"]). */
  port: number;
  /** ~/.vast-env: the container environment, /proc/<pid>/environ format (NUL-separated). */
  envFile: string;
  authorizedKeysFile: string;
  hostPublicKey: string;
  isListening: boolean;
}

export interface InstanceSnapshot {
  id: number;
  offerId: number;
  label: string | null;
  actualStatus: string | null;
  /** True until destroyed: the instance bills. */
  isLive: boolean;
  /** Destroyed and no longer listed. */
  isGone: boolean;
  createdAt: number;
  destroyedAt: number | null;
  destroyedBy: 'account' | 'instance' | null;
  /** CONTAINER_API_KEY. */
  apiKey: string;
  dphTotal: number;
  /** The create call's env, as sent. */
  env: Record<string, string>;
  /** The API's instance object at this moment. */
  view: Record<string, unknown>;
  node: NodeInfo;
}

export interface BillingSnapshot {
  instanceId: number;
  /** $/hour while running. */
  dphTotal: number;
  startedAt: number;
  endedAt: number | null;
  /** Billed hours so far (create → destroy, or → now). */
  hours: number;
  accruedUsd: number;
  /** What was billed running (all of it) and stopped (its disk only: stopped or outbid). */
  byState: { running: number; stopped: number };
  /** The bid ($/h for the machine) of an interruptible instance, else null. */
  bid: number | null;
}

export interface FaultKnobs {
  /** 429s with a plain-text body and no Retry-After: the next N calls and/or a ratio. */
  rateLimit(opts: RateLimitOptions): void;
  /** Every request waits this long (real time) before it is handled. */
  latency(ms: number): void;
  /** The next `count` creates really create (and bill) the instance, then answer `status`. */
  failCreateAfterCommit(count?: number, status?: number): void;
  /** The next `count` created instances never run: they stay loading, or end exited /
   *  offline / created with `statusMsg` (default: an OCI runtime error). */
  nextInstanceFate(fate: Exclude<Fate, 'run'>, opts?: { count?: number; statusMsg?: string }): void;
  /** An existing instance turns `status` now (exited/offline/created: its sshd goes away). */
  setStatus(
    instanceId: number,
    status: 'exited' | 'offline' | 'created' | 'unknown',
    statusMsg?: string,
  ): Promise<void>;
  /** Instances created from now on are absent from list/show calls for `ms` (fake clock). */
  delayListVisibility(ms: number): void;
  /** Instances destroyed from now on stay listed for `ms` (fake clock). */
  delayGoneVisibility(ms: number): void;
  /** The next `count` destroys answer 5xx and destroy nothing. */
  failDestroys(count: number, opts?: DestroyFailureOptions): void;
  /** Someone else rents this offer now: gone from search, create → 404 no_such_ask. */
  rentAway(offerId: number): void;
  /** After each of the next `count` searches, its first result is rented away. */
  rentAwayAfterSearch(count?: number): void;
  /** Keys added from now on reach the nodes' sshd after `ms` (fake clock). */
  sshKeyPropagation(ms: number): void;
  /** Someone outbids this interruptible instance: its machine's min_bid becomes `minBid`
   *  (default: its bid + 25%, to the thousandth), and every bid below it on that machine is
   *  stopped with its disk kept. Returns the new minimum. */
  outbid(instanceId: number, opts?: { minBid?: number }): Promise<number>;
  /** The next `count` creates that send a `price` rent on-demand anyway (vast-cli PR #403:
   *  a bid search without the bid price on create). */
  ignoreBidPrice(count?: number): void;
  /** The next `count` starts of a stopped instance find its machine's GPUs rented by
   *  someone else: accepted, but it stays stopped (billing storage). */
  gpusTakenOnStart(count?: number): void;
  /** The next N creates report their `-p` ports mapped where nothing listens (a port
   *  mapping that does not reach the instance). */
  mapPortsAway(count?: number): void;
  /** The next `count` creates pull their image at `gbPerMin` of the fake's clock (loading,
   *  `status_msg` saying how far: `<image>: Downloading [==>  ] 6.84GB/15GB`), then run; with
   *  `stallAtGb` the pull stops there for good and the instance stays loading. */
  nextInstancePull(opts: ImagePullOptions & { count?: number }): void;
  /** The next call `match` accepts waits, unanswered, until `release()` (after the
   *  latency knob, before 429s and routing): to put one client's call behind another's. */
  holdNext(match: (call: HeldCall) => boolean): CallHold;
  /** Disarms every knob (timings return to the options given at start); held calls go. */
  reset(): void;
}

export interface FakeVastState {
  instances(): InstanceSnapshot[];
  /** Not destroyed: what still bills. */
  liveInstances(): InstanceSnapshot[];
  /** The login name SSH as `user` reaches on the instance (the provider's `sshUser` seam). */
  loginFor(instanceId: number | string, user: string): string;
  destroyLog(): DestroyRecord[];
  calls(): CallRecord[];
  billing(instanceId: number): BillingSnapshot;
  offers(): MachineSpec[];
  accountKeys(): AccountKey[];
}

export interface FakeVast {
  /** The server root: `${url}/api/v0/…`. */
  url: string;
  apiKey: string;
  clock: Clock;
  addOffers(...seeds: OfferSeed[]): MachineSpec[];
  faults: FaultKnobs;
  state: FakeVastState;
  /** Private images (`registries.addPrivate(image, user, password)`): a create whose
   *  `image_login` does not match stays loading with Docker's refusal in `status_msg`. */
  registries: FakeRegistries;
  /** Moves instances along the clock now and waits for it (sshd starts, key writes, teardowns). */
  sync(): Promise<void>;
  /** Stops the server and every node (sshd, user, processes). Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_PUMP_MS = 20;

export async function startFakeVast(opts: FakeVastOptions = {}): Promise<FakeVast> {
  if (process.getuid?.() !== 0)
    throw new Error('the fake Vast runs real sshd nodes with throw-away users: run it as root');
  if (!existsSync('/usr/sbin/sshd'))
    throw new Error('/usr/sbin/sshd is missing: apt-get install openssh-server openssh-client');
  const clock = opts.clock ?? systemClock;
  const baseTimings = { ...DEFAULT_TIMINGS, ...opts.timings };
  const market = new VastMarket(clock, { ...baseTimings });
  market.images = opts.images;
  market.addOffers(opts.offers ?? []);
  for (const key of opts.accountSshKeys ?? []) market.addAccountKey(key);
  const apiKey = opts.apiKey ?? randomBytes(32).toString('hex');
  const server = await startServer(market, apiKey, [...instanceRoutes, ...accountRoutes]);
  const pumpMs = opts.pumpMs ?? DEFAULT_PUMP_MS;
  const pump = pumpMs > 0 ? setInterval(() => market.poke(), pumpMs) : null;
  pump?.unref();
  let stopping: Promise<void> | null = null;

  const record = (id: number): InstanceRecord => {
    const inst = market.instances.get(id);
    if (!inst) throw new Error(`fake vast: no instance ${id}`);
    return inst;
  };

  const faults: FaultKnobs = {
    rateLimit: (o) => armRateLimit(market.faults, o),
    latency: (ms) => void (market.faults.latencyMs = ms),
    failCreateAfterCommit: (count = 1, status = 500) =>
      void (market.faults.createFailures = { remaining: count, status }),
    nextInstanceFate: (fate, o = {}) => {
      for (let i = 0; i < (o.count ?? 1); i++)
        market.faults.fates.push({ fate, statusMsg: o.statusMsg ?? null });
    },
    setStatus: (id, status, msg) => market.force(record(id), status, msg ?? null),
    delayListVisibility: (ms) => void (market.timings.listVisibilityDelayMs = ms),
    delayGoneVisibility: (ms) => void (market.timings.goneVisibilityDelayMs = ms),
    failDestroys: (count, o = {}) =>
      void market.faults.destroyFailures.push({
        remaining: count,
        status: o.status ?? 500,
        instanceId: o.instanceId ?? null,
      }),
    rentAway: (offerId) => market.rentAway(offerId),
    rentAwayAfterSearch: (count = 1) => void (market.faults.rentAwayAfterSearch = count),
    sshKeyPropagation: (ms) => void (market.timings.sshKeyPropagationMs = ms),
    outbid: async (id, o = {}) => {
      const inst = record(id);
      if (inst.bid === null) throw new Error(`fake vast: instance ${id} is on-demand, not a bid`);
      const minBid = o.minBid ?? Math.round(inst.bid * 1.25 * 1000) / 1000;
      if (minBid <= inst.bid) throw new Error(`fake vast: ${minBid} does not outbid ${inst.bid}`);
      await market.setMinBid(inst.spec, minBid);
      return minBid;
    },
    ignoreBidPrice: (count = 1) => void (market.faults.ignoreBidPrice = count),
    gpusTakenOnStart: (count = 1) => void (market.faults.gpusTakenOnStart = count),
    mapPortsAway: (count = 1) => void (market.faults.mapPortsAway = count),
    nextInstancePull: ({ count = 1, ...o }) => {
      for (let i = 0; i < count; i++) market.faults.pulls.push(imagePullOf(o));
    },
    holdNext: (match) => armHold(market.faults, match),
    reset: () => {
      releaseHolds(market.faults);
      market.faults = freshFaults();
      Object.assign(market.timings, baseTimings);
    },
  };

  const snapshot = (inst: InstanceRecord): InstanceSnapshot => {
    const now = clock.now();
    return {
      id: inst.id,
      offerId: inst.spec.id,
      label: inst.label,
      actualStatus: actualStatus(inst, now),
      isLive: inst.destroyedAt === null,
      isGone: inst.goneAt !== null && now >= inst.goneAt,
      createdAt: inst.createdAt,
      destroyedAt: inst.destroyedAt,
      destroyedBy: inst.destroyedBy,
      apiKey: inst.apiKey,
      dphTotal: inst.dphTotal,
      env: { ...inst.env },
      view: instanceView(inst, now),
      node: {
        user: inst.node.user,
        home: inst.node.home,
        port: inst.node.port,
        envFile: inst.node.envFile,
        authorizedKeysFile: inst.node.authorizedKeysFile,
        hostPublicKey: inst.node.hostPublicKey,
        isListening: inst.node.isListening,
      },
    };
  };

  const state: FakeVastState = {
    instances: () => [...market.instances.values()].map(snapshot),
    loginFor: (id, user) => market.loginFor(Number(id), user),
    liveInstances: () =>
      [...market.instances.values()].filter((i) => i.destroyedAt === null).map(snapshot),
    destroyLog: () => market.destroyLog.map((d) => ({ ...d })),
    calls: () => server.calls.map((c) => ({ ...c })),
    billing: (id) => {
      const inst = record(id);
      const now = clock.now();
      const end = inst.destroyedAt ?? now;
      return {
        instanceId: id,
        dphTotal: inst.dphTotal,
        startedAt: inst.createdAt,
        endedAt: inst.destroyedAt,
        hours: (end - inst.createdAt) / 3_600_000,
        accruedUsd: accruedUsd(inst, now),
        byState: {
          running: accruedUsd(inst, now, 'running'),
          stopped: accruedUsd(inst, now, 'stopped'),
        },
        bid: inst.bid,
      };
    },
    offers: () => [...market.offers.values()].map((e) => ({ ...e.spec })),
    accountKeys: () => market.accountKeys.map((k) => ({ ...k })),
  };

  return {
    url: server.url,
    apiKey,
    clock,
    addOffers: (...seeds) => market.addOffers(seeds),
    faults,
    state,
    registries: market.registries,
    sync: () => market.sync(),
    stop: () => {
      stopping ??= (async () => {
        if (pump) clearInterval(pump);
        releaseHolds(market.faults);
        await server.close();
        await market.close();
      })();
      return stopping;
    },
  };
}
