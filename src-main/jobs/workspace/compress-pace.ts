// How hard a push compresses, segment by segment, from what the link does: compression pays
// only while the link is slower than the compressor. The encoder (push-encoder.ts) asks
// before each segment worth trying and reports each compression it made. The answer is
// the densest quality whose compressions, as many as run at once, put out bytes faster
// than the link has been taking them (with headroom, so the link never waits on the CPU);
// if even the fastest cannot, the bytes go as they are where the link is fast, and at the
// fast quality where it is not (a slow link a loaded CPU cannot keep busy still gains
// more from fewer bytes). The link's rate is what it took from the encoder over the last
// half second: on a slow link its capacity, on a fast one at least what the encoder put
// out, which then pushes the answer towards faster qualities until the link has headroom.
// And where the link waits on the compressions (nothing queued for it when most recent
// segments were cut, while it takes about what they put out: a fast link and a busy CPU),
// the answer is capped one step faster with each such cut, down to raw: the link's rate then
// shows while raw bytes fill it, and the cap is lifted a step a cut once bytes queue for
// the link again. A link that waits while taking far less than the compressions put out
// waits on what feeds the encoder (many small files), not on them: the answer stays.

/** Brotli qualities in order of CPU spent; null sends the segment as it is. */
export type Quality = null | 1 | 4 | 5;

/** Input bytes per ms one compression gets through, before any is measured: on a 4.9× CSV,
 *  one core, q1 ratio 0.236 at ~300 MB/s, q4 0.215 at ~130 MB/s, q5 0.201 at ~66 MB/s
 *  (q6: 0.198 at 57 MB/s, not worth its time). */
const PRIOR_SPEED: Record<1 | 4 | 5, number> = { 1: 300e3, 4: 130e3, 5: 66e3 };
const DENSEST_FIRST = [5, 4, 1] as const;
const PRIOR_RATIO = 0.3;
/** Weight of the newest measurement in the running averages. */
const NEW_WEIGHT = 0.3;

/** Compression must outpace the link by this much: its speed is a running average, and
 *  a link that waits on it costs more than the bytes a denser quality saves. */
export const HEADROOM = 1.1;
/** The first bytes fill the SSH window (2 MiB) and buffers without waiting for the link,
 *  whatever its speed: the link is not judged on them. */
export const WARMUP_BYTES = 4 * 1024 * 1024;
/** Above 64 MB/s (512 Mbit/s) a link takes raw bytes about as fast as a loaded core
 *  compresses them at the fast quality: only there does sending them raw win. */
export const FAST_LINK_BYTES_PER_S = 64e6;
/** Less than this queued for the link when a segment is cut: the link waits on us. */
export const STARVED_BACKLOG_BYTES = 64 * 1024;
/** Weight of the newest cut in the share of cuts that found the link waiting… */
const STARVED_WEIGHT = 0.3;
/** …above which the cap moves a step faster, and below which it moves a step denser. */
const STARVED_SHARE = 0.5;
const FED_SHARE = 0.2;
const LEVELS: readonly Quality[] = [5, 4, 1, null];
/** The link waiting is put down to the compressions only where it takes at least this
 *  share of what they can put out. */
const LIMIT_SHARE = 0.5;
/** The link's rate is judged over this much of the recent past (at least `MIN_SPAN_MS`). */
const RATE_SPAN_MS = 500;
const MIN_SPAN_MS = 50;
/** The span the link's rate must cover before it decides the chunks compressed ahead
 *  (`aheadQuality`). */
const AHEAD_SPAN_MS = 250;
/** One compression ahead must read this much faster than the link takes raw bytes: it runs
 *  beside the raw bytes' own sending on a busy machine, where q5 measured 43 MB/s against
 *  its prior 66 (precompress.ts), and q4 ahead on a 1 Gbit/s link (~85 MB/s) kept the
 *  encoder waiting. */
const AHEAD_HEADROOM = 2;

export interface LinkObservation {
  /** When, in ms on a monotonic clock. */
  atMs: number;
  /** Bytes the encoder has put out so far, and how many of them the link has taken. */
  sentBytes: number;
  drainedBytes: number;
}

export class CompressPace {
  private readonly speed = { ...PRIOR_SPEED };
  private ratio = PRIOR_RATIO;
  private readonly past: { atMs: number; drainedBytes: number }[] = [];
  /** Set once the link took bytes faster than any quality could shrink them. */
  isFastLink = false;
  /** The share of recent cuts that found the link waiting on compression. */
  private starved = 0;
  /** The densest level (index into `LEVELS`) the answer may be. */
  private cap = 0;

  /** `parallel`: compressions the encoder runs at once. */
  constructor(private readonly parallel: number) {}

  /** The quality for the next segment worth trying. */
  next(o: LinkObservation): Quality {
    const rate = this.linkRate(o);
    if (rate === undefined) return 1;
    this.noteBacklog(o);
    const level = LEVELS.indexOf(this.qualityFor(rate));
    const capped = Math.max(level, this.cap);
    if (this.starved > STARVED_SHARE && this.mayLimit(LEVELS[capped] ?? null, rate))
      this.cap = Math.min(capped + 1, 3);
    else if (this.starved < FED_SHARE) this.cap = Math.max(this.cap - 1, 0);
    return LEVELS[Math.max(level, this.cap)] ?? null;
  }

  /** The quality chunks compressed ahead (precompress.ts, one at a time) pay at on this
   *  link, or null: none, or not yet known (`aheadQualityFor`). Asked at raw segments only,
   *  whose cuts follow the link's pace (nothing is queued for it when they are cut: a
   *  backlog would say nothing of the link), so the rate alone decides, once it spans
   *  `AHEAD_SPAN_MS`: just after the warm-up a slow link's buffers still fill (a 100 Mbit/s
   *  link reads 40 MB/s) and a fast link's sender still starts (loopback reads under 60).
   *  Until then `knownRate`, what earlier pushes to this endpoint measured (bytes/s), stands
   *  in for it. */
  aheadQuality(o: LinkObservation, knownRate?: number): 1 | 4 | 5 | null {
    const rate = this.linkRate(o);
    if (rate !== undefined && o.atMs - this.past[0]!.atMs >= AHEAD_SPAN_MS) {
      return aheadQualityFor(rate);
    }
    return knownRate !== undefined && knownRate > 0 ? aheadQualityFor(knownRate) : null;
  }

  /** Whether compressions at `q` may be what the link waits on: the link takes at least
   *  `LIMIT_SHARE` of what they put out. Far below it, the link waits on what feeds the
   *  encoder (a folder of small files read one by one), and bytes sent raw would only
   *  cost the link more of them. */
  private mayLimit(q: Quality, rate: number): boolean {
    if (q === null) return false;
    return rate / 1000 >= LIMIT_SHARE * this.parallel * this.speed[q] * this.ratio;
  }

  /** Whether the link had bytes queued for it at this cut. */
  private noteBacklog(o: LinkObservation): void {
    const isWaiting = o.sentBytes - o.drainedBytes < STARVED_BACKLOG_BYTES;
    this.starved += STARVED_WEIGHT * ((isWaiting ? 1 : 0) - this.starved);
  }

  private qualityFor(rate: number): Quality {
    const needed = (rate / 1000) * HEADROOM; // bytes per ms
    for (const q of DENSEST_FIRST) {
      if (this.parallel * this.speed[q] * this.ratio >= needed) return q;
    }
    if (rate < FAST_LINK_BYTES_PER_S) return 1;
    this.isFastLink = true;
    return null;
  }

  /** One compression at `quality`: `rawBytes` in, `outBytes` out, in `ms` of wall time. */
  compressed(quality: 1 | 4 | 5, rawBytes: number, outBytes: number, ms: number): void {
    const speed = rawBytes / Math.max(ms, 0.01);
    this.speed[quality] += NEW_WEIGHT * (speed - this.speed[quality]);
    this.ratio += NEW_WEIGHT * (Math.min(1, outBytes / rawBytes) - this.ratio);
  }

  /** Bytes per second the link took over the recent past; undefined while too little of
   *  it has been seen. */
  private linkRate(o: LinkObservation): number | undefined {
    this.past.push({ atMs: o.atMs, drainedBytes: o.drainedBytes });
    while (this.past.length > 2 && o.atMs - this.past[1]!.atMs >= RATE_SPAN_MS) this.past.shift();
    const first = this.past[0]!;
    const span = o.atMs - first.atMs;
    if (span < MIN_SPAN_MS || o.sentBytes < WARMUP_BYTES) return undefined;
    return ((o.drainedBytes - first.drainedBytes) * 1000) / span;
  }
}

/** The densest quality whose one compression reads faster than a link taking `rate` raw
 *  bytes per second (with `AHEAD_HEADROOM`), or null where none does: chunks compressed
 *  ahead at it keep ahead of the encoder, which would otherwise wait on each. The speed is
 *  the prior, not a running average: that one times the inline compressions on a busy
 *  thread pool, waits included. q5 below 33 MB/s (a 100 Mbit/s link), q4 below 65, q1
 *  below 150 (1 Gbit/s); none above (loopback on a fast machine). */
export function aheadQualityFor(rate: number): 1 | 4 | 5 | null {
  const needed = (rate / 1000) * AHEAD_HEADROOM;
  for (const q of DENSEST_FIRST) if (PRIOR_SPEED[q] > needed) return q;
  return null;
}
