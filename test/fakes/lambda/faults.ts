// What the fault knobs have armed, and the one-shot decisions the server takes from them.
// Counted knobs ("the next N …") are consumed by the calls they hit; ratios draw from a
// seeded generator, so a run is reproducible.

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

export interface CapacityFault {
  /** Only launches of this type (default: any). */
  instanceType?: string;
  /** Only launches in this region (default: any). */
  region?: string;
  /** The next N matching launches (default: every one until reset). */
  count?: number;
}

export interface FaultState {
  rateLimitNext: number;
  rateLimitRatio: number;
  random: () => number;
  rateLimitMatch: (call: { method: string; path: string }) => boolean;
  capacity: { instanceType: string | null; region: string | null; remaining: number }[];
  /** The next N launches launch (and bill), then answer this status. */
  launchFailures: { remaining: number; status: number };
  /** The next N launched instances stay booting (ip null, sshd refusing) forever. */
  stuckBooting: number;
  terminateFailures: { remaining: number; status: number };
  /** A launch sooner than this after the last accepted one answers 429 (0: no limit). */
  launchLimitMs: number;
}

const EVERY_CALL = () => true;

export function freshFaults(): FaultState {
  return {
    rateLimitNext: 0,
    rateLimitRatio: 0,
    random: seededRandom(1),
    rateLimitMatch: EVERY_CALL,
    capacity: [],
    launchFailures: { remaining: 0, status: 500 },
    stuckBooting: 0,
    terminateFailures: { remaining: 0, status: 500 },
    launchLimitMs: 0,
  };
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

/** Whether this launch is refused for capacity by an armed knob (and consumes it). */
export function takeNoCapacity(f: FaultState, instanceType: string, region: string): boolean {
  const armed = f.capacity.find(
    (c) =>
      c.remaining > 0 &&
      (c.instanceType === null || c.instanceType === instanceType) &&
      (c.region === null || c.region === region),
  );
  if (!armed) return false;
  armed.remaining -= 1;
  return true;
}

export function takeCount(counter: { remaining: number; status: number }): number | null {
  if (counter.remaining <= 0) return null;
  counter.remaining -= 1;
  return counter.status;
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
