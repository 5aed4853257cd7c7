// Samples the GPUs every few seconds into the node's log (src `gpu`, one compact JSON line
// per sample), so the samples ride the log's seq, backfill and resume like any record, and
// keeps the idle clock the dead-man switch reads (docs/agent-protocol.md, "GPU samples").
import { execFile } from 'node:child_process';
import {
  GPU_LOG_SOURCE,
  GpuIdleClock,
  type GpuSample,
  encodeGpuSample,
} from '../../wire/gpu-sample';
import { GPU_USAGE_ARGS, parseGpuUsage } from './gpu-usage';
import type { LogStore } from '../logs/log-store';

/** Every 5 s: a sparkline with a point per pixel-ish, and one short process per sample. */
export const GPU_SAMPLE_MS = 5_000;
/** A sample equal to the last one written is left out of the log for up to this long: a
 *  node idling overnight writes one line a minute, not twelve. */
export const GPU_HEARTBEAT_MS = 60_000;
/** nvidia-smi takes seconds on a cold driver; a hung one is killed and the sample skipped. */
const QUERY_TIMEOUT_MS = 10_000;
/** After failures the next try waits longer (doubling), up to this. */
const MAX_BACKOFF_MS = 60_000;

export interface RunningQuery {
  /** nvidia-smi's stdout; undefined when it failed, timed out or is missing. */
  result: Promise<string | undefined>;
  kill(): void;
}

export interface GpuSamplerDeps {
  log: Pick<LogStore, 'append'>;
  everyMs: number;
  /** Monotonic ms: the idle clock's time (a wall-clock jump changes no deadline). */
  nowMono: () => number;
  /** Epoch ms on the node's clock: the sample's `t`. */
  now: () => number;
  query?: () => RunningQuery;
}

export class GpuSampler {
  /** Since when every GPU read below a threshold, on the monotonic clock. */
  readonly idle = new GpuIdleClock();
  private timer: NodeJS.Timeout | undefined;
  private running: RunningQuery | undefined;
  private isOn = false;
  private failures = 0;
  private lastWritten: { key: string; at: number } | undefined;

  constructor(private readonly d: GpuSamplerDeps) {}

  /** On when the probe found GPUs (at start, and after a host-setup re-probe). */
  setEnabled(on: boolean): void {
    if (on === this.isOn || this.d.everyMs <= 0) return;
    if (!on) return this.stop();
    this.isOn = true;
    this.failures = 0;
    this.schedule(0);
  }

  /** No sample after this; a query in flight is killed. */
  stop(): void {
    this.isOn = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running?.kill();
    this.running = undefined;
    this.idle.reset();
  }

  /** The idle clock restarts: a new run phase is judged on its own samples only. */
  restartIdleClock(): void {
    this.idle.reset();
  }

  private schedule(ms: number): void {
    // Never overlaps itself: the next sample is scheduled when this one is done.
    this.timer = setTimeout(() => void this.sample(), ms);
    this.timer.unref();
  }

  private async sample(): Promise<void> {
    this.timer = undefined;
    const q = (this.d.query ?? runNvidiaSmi)();
    this.running = q;
    const text = await q.result;
    if (this.running !== q || !this.isOn) return; // stopped meanwhile
    this.running = undefined;
    const gpus = text === undefined ? [] : parseGpuUsage(text);
    if (gpus.length === 0) {
      // Missing data never counts as idle: the clock starts again with the next reading.
      this.idle.reset();
      this.failures++;
      return this.schedule(Math.min(MAX_BACKOFF_MS, this.d.everyMs * 2 ** this.failures));
    }
    this.failures = 0;
    const s: GpuSample = { t: this.d.now(), gpus };
    const mono = this.d.nowMono();
    this.idle.note(s, mono);
    const key = encodeGpuSample({ t: 0, gpus });
    if (
      !this.lastWritten ||
      this.lastWritten.key !== key ||
      mono - this.lastWritten.at >= GPU_HEARTBEAT_MS
    ) {
      this.d.log.append(GPU_LOG_SOURCE, 'info', encodeGpuSample(s));
      this.lastWritten = { key, at: mono };
    }
    this.schedule(this.d.everyMs);
  }
}

function runNvidiaSmi(): RunningQuery {
  let kill = () => {};
  const result = new Promise<string | undefined>((resolve) => {
    try {
      const child = execFile(
        'nvidia-smi',
        GPU_USAGE_ARGS,
        { timeout: QUERY_TIMEOUT_MS, killSignal: 'SIGKILL', encoding: 'utf8' },
        (err, stdout) => resolve(err ? undefined : stdout),
      );
      kill = () => child.kill('SIGKILL');
    } catch {
      resolve(undefined);
    }
  });
  return { result, kill: () => kill() };
}

/** `TENDER_AGENT_GPU_SAMPLE_MS` (tests sample faster; 0 turns sampling off), else 5 s. */
export function sampleEveryMs(env: NodeJS.ProcessEnv): number {
  const v = Number(env.TENDER_AGENT_GPU_SAMPLE_MS);
  if (env.TENDER_AGENT_GPU_SAMPLE_MS === undefined || !Number.isFinite(v)) return GPU_SAMPLE_MS;
  return v <= 0 ? 0 : Math.max(100, v);
}
