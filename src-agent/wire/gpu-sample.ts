// One GPU sample as the agent logs it (src `gpu`, docs/agent-protocol.md, "GPU samples"),
// and the idle clock both sides keep over them. Runtime-free: the app imports this file.

/** The log source of the samples: never job output, never printed as such. */
export const GPU_LOG_SOURCE = 'gpu';

export interface GpuReading {
  /** nvidia-smi's index. */
  i: number;
  /** utilization.gpu, percent; null where nvidia-smi printed [N/A] (a MIG-enabled GPU). */
  util: number | null;
  /** memory.used and memory.total, MiB (nvidia-smi's unit); null for [N/A]. */
  memUsed: number | null;
  memTotal: number | null;
}

/** The `line` of a `gpu` record: `{"t":…,"gpus":[{"i":0,"util":87,"memUsed":31245,"memTotal":81920}]}`. */
export interface GpuSample {
  /** When it was sampled: epoch ms on the node's clock. */
  t: number;
  gpus: GpuReading[];
}

export function encodeGpuSample(s: GpuSample): string {
  return JSON.stringify({
    t: s.t,
    gpus: s.gpus.map(({ i, util, memUsed, memTotal }) => ({ i, util, memUsed, memTotal })),
  });
}

/** The sample a `gpu` record's line holds; null for anything else (never throws). */
export function decodeGpuSample(line: string): GpuSample | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const { t, gpus } = v as { t?: unknown; gpus?: unknown };
  if (typeof t !== 'number' || !Array.isArray(gpus)) return null;
  const out: GpuReading[] = [];
  for (const g of gpus) {
    if (typeof g !== 'object' || g === null) return null;
    const r = g as Record<string, unknown>;
    if (typeof r.i !== 'number') return null;
    out.push({
      i: r.i,
      util: numOrNull(r.util),
      memUsed: numOrNull(r.memUsed),
      memTotal: numOrNull(r.memTotal),
    });
  }
  return { t, gpus: out };
}

function numOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Whether every GPU of a sample reads below `threshold` percent. A GPU whose utilisation
 *  nvidia-smi cannot read counts as busy: nothing is ever judged idle on missing data. */
export function isBelow(s: GpuSample, threshold: number): boolean {
  return s.gpus.length > 0 && s.gpus.every((g) => g.util !== null && g.util < threshold);
}

/**
 * Since when every GPU has read below each threshold, 1 … 100 percent (whole percents:
 * nvidia-smi's utilisation is one). One number per threshold, so a renewal that changes
 * the threshold needs no history.
 */
export class GpuIdleClock {
  /** [u]: the time since which every sample read below u%; null: the last did not. */
  private readonly since: (number | null)[] = new Array<number | null>(101).fill(null);

  note(s: GpuSample, at: number): void {
    // The busiest GPU decides; one without a reading makes every threshold busy.
    const busiest =
      s.gpus.length === 0 || s.gpus.some((g) => g.util === null)
        ? Infinity
        : Math.max(...s.gpus.map((g) => g.util as number));
    for (let u = 1; u <= 100; u++) {
      if (busiest >= u) this.since[u] = null;
      else this.since[u] ??= at;
    }
  }

  /** Since when every GPU has read below `threshold`% (null: the latest sample did not,
   *  or none came yet). A fractional threshold counts as the next whole percent. */
  belowSince(threshold: number): number | null {
    const u = Math.min(100, Math.max(1, Math.ceil(threshold)));
    return this.since[u] ?? null;
  }

  reset(): void {
    this.since.fill(null);
  }
}
