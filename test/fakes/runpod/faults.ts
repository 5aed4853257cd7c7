// What the fault knobs have armed, and the one-shot decisions the server takes from them.
// Counted knobs ("the next N …") are consumed by the calls they hit; ratios draw from a
// seeded generator, so a run is reproducible.
import type { ImagePull } from '../image-pull';

export interface RateLimitOptions {
  /** The next N calls answer 429. */
  next?: number;
  /** Each call answers 429 with this probability (0…1), from a seeded generator. */
  ratio?: number;
  seed?: number;
  /** Sent as Retry-After (seconds) on each 429; none by default (GraphQL documents none). */
  retryAfterS?: number;
}

export interface FaultState {
  rateLimitNext: number;
  rateLimitRatio: number;
  retryAfterS: number | null;
  random: () => number;
  /** GPU type ids whose creates find no machine; `*`: every type. */
  noCapacity: Set<string>;
  /** The next N creates really create (and bill) the pod, then answer this status. */
  createFailures: { remaining: number; status: number };
  /** The next N created pods never get a runtime (their sshd never listens). */
  stuckBooting: number;
  /** The next N podTerminate calls answer this status and terminate nothing. */
  terminateFailures: { remaining: number; status: number };
  /** The next created pods pull their image this way, one each (no runtime until done). */
  pulls: ImagePull[];
}

export function freshFaults(): FaultState {
  return {
    rateLimitNext: 0,
    rateLimitRatio: 0,
    retryAfterS: null,
    random: seededRandom(1),
    noCapacity: new Set(),
    createFailures: { remaining: 0, status: 500 },
    stuckBooting: 0,
    terminateFailures: { remaining: 0, status: 500 },
    pulls: [],
  };
}

export function armRateLimit(f: FaultState, opts: RateLimitOptions): void {
  if (opts.ratio !== undefined && (opts.ratio < 0 || opts.ratio > 1))
    throw new Error('rateLimit: ratio is a probability, 0…1');
  f.rateLimitNext = opts.next ?? 0;
  f.rateLimitRatio = opts.ratio ?? 0;
  f.retryAfterS = opts.retryAfterS ?? null;
  f.random = seededRandom(opts.seed ?? 1);
}

/** Decides (and consumes) whether this call is answered 429. */
export function takeRateLimit(f: FaultState): boolean {
  if (f.rateLimitNext > 0) {
    f.rateLimitNext -= 1;
    return true;
  }
  return f.rateLimitRatio > 0 && f.random() < f.rateLimitRatio;
}

/** Takes one from a counted knob; whether it was armed. */
export function takeOne(knob: { remaining: number }): boolean {
  if (knob.remaining <= 0) return false;
  knob.remaining -= 1;
  return true;
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
