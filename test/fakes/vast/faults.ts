// What the fault knobs have armed, and the one-shot decisions the server takes from them.
// Counted knobs ("the next N …") are consumed by the calls they hit; ratios draw from a
// seeded generator, so a run is reproducible.
import type { Fate } from './instance';
import type { ImagePull } from '../image-pull';

export interface RateLimitOptions {
  /** The next N matching calls answer 429. */
  next?: number;
  /** Each matching call answers 429 with this probability (0…1), from a seeded generator. */
  ratio?: number;
  /** Seed of the ratio's generator (default 1). */
  seed?: number;
  /** Which calls count (default: every endpoint). */
  match?: (call: { method: string; path: string }) => boolean;
}

export interface DestroyFailureOptions {
  /** 500 (default), 502, 503 or 504. */
  status?: number;
  /** Only destroys of this instance fail (default: any). */
  instanceId?: number;
}

/** A call held at the fake (it waits, unanswered) until the test lets it go. */
export interface CallHold {
  /** Whether the call has come and is waiting now. */
  isHeld(): boolean;
  /** Lets it go (and the next matching call, if none has come yet, through at once). */
  release(): void;
}

interface ArmedHold {
  match: (call: HeldCall) => boolean;
  isTaken: boolean;
  isHeld: boolean;
  released: Promise<void>;
  release: () => void;
}

/** What a hold's match sees of a call: its method, path and parsed JSON body. */
export interface HeldCall {
  method: string;
  path: string;
  body: unknown;
}

export interface FaultState {
  rateLimitNext: number;
  rateLimitRatio: number;
  random: () => number;
  rateLimitMatch: (call: { method: string; path: string }) => boolean;
  latencyMs: number;
  createFailures: { remaining: number; status: number };
  fates: { fate: Exclude<Fate, 'run'>; statusMsg: string | null }[];
  destroyFailures: { remaining: number; status: number; instanceId: number | null }[];
  rentAwayAfterSearch: number;
  /** The next N creates with a `price` rent on-demand as if it had not been sent. */
  ignoreBidPrice: number;
  /** The next N starts of a stopped instance find its GPUs rented: it stays stopped. */
  gpusTakenOnStart: number;
  /** The next N creates report their `-p` ports mapped one port off (nothing there). */
  mapPortsAway: number;
  /** The next creates pull their image this way, one each (loading until it completes). */
  pulls: ImagePull[];
  /** Calls to hold, each the next one its match accepts. */
  holds: ArmedHold[];
}

const EVERY_CALL = () => true;

export function freshFaults(): FaultState {
  return {
    rateLimitNext: 0,
    rateLimitRatio: 0,
    random: seededRandom(1),
    rateLimitMatch: EVERY_CALL,
    latencyMs: 0,
    createFailures: { remaining: 0, status: 500 },
    fates: [],
    destroyFailures: [],
    rentAwayAfterSearch: 0,
    ignoreBidPrice: 0,
    gpusTakenOnStart: 0,
    mapPortsAway: 0,
    pulls: [],
    holds: [],
  };
}

export function armHold(f: FaultState, match: (call: HeldCall) => boolean): CallHold {
  let resolve!: () => void;
  const released = new Promise<void>((r) => (resolve = r));
  const hold: ArmedHold = {
    match,
    isTaken: false,
    isHeld: false,
    released,
    release: () => {
      hold.isHeld = false;
      resolve();
    },
  };
  f.holds.push(hold);
  return { isHeld: () => hold.isHeld, release: hold.release };
}

/** Waits while an armed hold takes this call (each hold takes one call); else at once. */
export async function takeHold(f: FaultState, call: HeldCall): Promise<void> {
  const hold = f.holds.find((h) => !h.isTaken && h.match(call));
  if (!hold) return;
  hold.isTaken = true;
  hold.isHeld = true;
  await hold.released;
}

/** Lets every held call go (a reset, a stop: nothing may wait for ever). */
export function releaseHolds(f: FaultState): void {
  for (const h of f.holds) h.release();
}

export function armRateLimit(f: FaultState, opts: RateLimitOptions): void {
  if (opts.ratio !== undefined && (opts.ratio < 0 || opts.ratio > 1))
    throw new Error('rateLimit: ratio is a probability, 0…1');
  f.rateLimitNext = opts.next ?? 0;
  f.rateLimitRatio = opts.ratio ?? 0;
  f.random = seededRandom(opts.seed ?? 1);
  f.rateLimitMatch = opts.match ?? EVERY_CALL;
}

/** Decides (and consumes) whether this call is answered 429. */
export function takeRateLimit(f: FaultState, call: { method: string; path: string }): boolean {
  if (!f.rateLimitMatch(call)) return false;
  if (f.rateLimitNext > 0) {
    f.rateLimitNext -= 1;
    return true;
  }
  return f.rateLimitRatio > 0 && f.random() < f.rateLimitRatio;
}

/** The fate of the next created instance. */
export function takeFate(f: FaultState): { fate: Fate; statusMsg: string | null } {
  return f.fates.shift() ?? { fate: 'run', statusMsg: null };
}

/** How the next created instance pulls its image; null: at once (the timings). */
export function takePull(f: FaultState): ImagePull | null {
  return f.pulls.shift() ?? null;
}

/** Whether this create's bid price is dropped (and consumes the knob). */
export function takeIgnoredBid(f: FaultState): boolean {
  if (f.ignoreBidPrice <= 0) return false;
  f.ignoreBidPrice -= 1;
  return true;
}

/** The status to answer a create with after committing it, or null for success. */
export function takeCreateFailure(f: FaultState): number | null {
  if (f.createFailures.remaining <= 0) return null;
  f.createFailures.remaining -= 1;
  return f.createFailures.status;
}

/** The 5xx status this destroy of `instanceId` fails with, or null to let it through. */
export function takeDestroyFailure(f: FaultState, instanceId: number): number | null {
  const armed = f.destroyFailures.find(
    (d) => d.remaining > 0 && (d.instanceId === null || d.instanceId === instanceId),
  );
  if (!armed) return null;
  armed.remaining -= 1;
  return armed.status;
}

/** mulberry32: small, fast, good enough to spread 429s reproducibly. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
