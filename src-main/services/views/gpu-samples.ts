// Each node's GPU samples as the datastream stores them (src `gpu` on the agent channel),
// kept in memory as a short ring, so a view costs no file read: fed from the datastream's
// batch callback, and read from a node's stored tail where this process streams nothing
// of it (`prime`: a `tender status` started after the run, a reader of another's run).
import { GpuIdleClock, type GpuSample, decodeGpuSample } from '../../../src-agent/wire/gpu-sample';
import type { LogRecord, NodeGpu } from '../../contract';
import { isStale, isStalled } from './stall-rule';

/** Points of a node's sparkline: 5 min at the agent's 5 s. */
export const HISTORY_POINTS = 60;
/** Records of a node's stored log read by `prime`: at a sample every 5 s, hours of an
 *  idle node; fewer where the job prints a lot. */
export const PRIME_RECORDS = 5_000;
/** Nodes remembered at once; the least recently fed is forgotten first. */
const MAX_NODES = 512;
/** A node this process does not stream is read again at most this often. */
const PRIME_AGAIN_MS = 30_000;

interface NodeSamples {
  lastSeq: number;
  latest: GpuSample | null;
  history: NodeGpu['history'];
  clock: GpuIdleClock;
  lastLineAt: number | null;
}

export interface GpuSamplesDeps {
  now: () => number;
  /** The newest `limit` records of a node's agent channel, oldest first. */
  readTail: (nodeId: string, limit: number) => Promise<LogRecord[]>;
  /** Nodes whose summary may have changed (a sample came, or a line after a silence). */
  onChange?: (nodeIds: string[]) => void;
}

export interface GpuSummaryFacts {
  /** The job's setup or run phase is running (only then can it be "stalled?"). */
  isJobRunning: boolean;
  /** Percent: GPUs below it are idle (the run's idle_gpu_util_below, else 5). */
  utilBelow: number;
}

export class GpuSamples {
  private readonly nodes = new Map<string, NodeSamples>();
  /** Nodes whose records this process's datastream receives: never read from disk. */
  private readonly live = new Set<string>();
  private readonly primed = new Map<string, { at: number; done: Promise<void> }>();

  constructor(private readonly d: GpuSamplesDeps) {}

  /** A datastream batch: every node's agent records, in seq order per node. */
  feed(records: readonly LogRecord[]): void {
    const changed = new Set<string>();
    for (const r of records) {
      if (r.channel !== 'agent') continue;
      this.live.add(r.node);
      if (this.apply(this.node(r.node), r)) changed.add(r.node);
    }
    if (changed.size > 0) this.d.onChange?.([...changed]);
  }

  /** Reads the stored tail of the nodes this process does not stream (at most every
   *  30 s each), so their summaries are as fresh as what another process stored. */
  async prime(nodeIds: readonly string[]): Promise<void> {
    const now = this.d.now();
    await Promise.all(
      nodeIds
        .filter((id) => !this.live.has(id))
        .map((id) => {
          const last = this.primed.get(id);
          if (last && now - last.at < PRIME_AGAIN_MS) return last.done;
          const done = this.d
            .readTail(id, PRIME_RECORDS)
            .then((records) => {
              if (this.live.has(id)) return; // live records came meanwhile: they are newer
              const n = freshNode();
              for (const r of records) this.apply(n, r);
              this.nodes.delete(id);
              this.remember(id, n);
            })
            .catch(() => {}); // no stored log: no summary
          this.primed.set(id, { at: now, done });
          return done;
        }),
    );
  }

  summary(nodeId: string, facts: GpuSummaryFacts): NodeGpu | null {
    const n = this.nodes.get(nodeId);
    if (!n?.latest) return null;
    const now = this.d.now();
    return {
      at: n.latest.t,
      gpus: n.latest.gpus.map((g) => ({
        index: g.i,
        util: g.util,
        memUsedMiB: g.memUsed,
        memTotalMiB: g.memTotal,
      })),
      history: n.history.slice(),
      stale: isStale(n.latest.t, now),
      stalled: isStalled({
        isJobRunning: facts.isJobRunning,
        now,
        latestAt: n.latest.t,
        gpuIdleSince: n.clock.belowSince(facts.utilBelow),
        lastLineAt: n.lastLineAt,
      }),
      lastLineAt: n.lastLineAt,
    };
  }

  /** Takes one record into its node's ring; whether the node's summary may have changed. */
  private apply(n: NodeSamples, r: LogRecord): boolean {
    if (r.seq <= n.lastSeq) return false; // a resumed stream's overlap
    n.lastSeq = r.seq;
    if (r.source !== 'gpu') {
      // A line after a long silence may end a "stalled?".
      const wasQuiet = n.latest !== null && (n.lastLineAt === null || r.ts - n.lastLineAt > 60_000);
      n.lastLineAt = Math.max(n.lastLineAt ?? -Infinity, r.ts);
      return wasQuiet;
    }
    const s = decodeGpuSample(r.line);
    if (!s) return false;
    n.latest = s;
    n.clock.note(s, s.t);
    n.history.push({ at: s.t, util: meanUtil(s) });
    if (n.history.length > HISTORY_POINTS) n.history.splice(0, n.history.length - HISTORY_POINTS);
    return true;
  }

  private node(id: string): NodeSamples {
    const n = this.nodes.get(id);
    if (!n) return this.remember(id, freshNode());
    // Most recently fed last: the first is the one to forget.
    this.nodes.delete(id);
    this.nodes.set(id, n);
    return n;
  }

  private remember(id: string, n: NodeSamples): NodeSamples {
    this.nodes.set(id, n);
    if (this.nodes.size > MAX_NODES) {
      const oldest = this.nodes.keys().next().value as string;
      this.nodes.delete(oldest);
      this.live.delete(oldest);
      this.primed.delete(oldest);
    }
    return n;
  }
}

function freshNode(): NodeSamples {
  return { lastSeq: 0, latest: null, history: [], clock: new GpuIdleClock(), lastLineAt: null };
}

/** The GPUs' mean utilisation; null when none could be read. */
function meanUtil(s: GpuSample): number | null {
  const read = s.gpus.flatMap((g) => (g.util === null ? [] : [g.util]));
  return read.length === 0 ? null : read.reduce((a, b) => a + b, 0) / read.length;
}
