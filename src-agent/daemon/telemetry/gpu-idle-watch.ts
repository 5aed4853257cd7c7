// The GPU idle rule on the node: checks the rule on a timer against the GPU samples' idle
// clock, and when it fires logs the firing (a `gpu_idle` record and an agent line, so the
// app reads it at its next look whoever was connected) and acts: nothing more, the job
// stopped as a cancel would, or the dead-man switch fired. Decision: gpu-idle-rule.ts.
import type { Firing } from '../dead-man/dead-man';
import {
  GPU_IDLE_LOG_SOURCE,
  type GpuIdleFiring,
  type GpuIdleOutcome,
  type GpuIdleRule,
  encodeGpuIdleFiring,
} from '../../wire/gpu-idle';
import type { LogStore } from '../logs/log-store';
import { decideGpuIdle, shortDuration } from './gpu-idle-rule';

/** The check's period: a quarter of the window, between these (the samples come every 5 s;
 *  a test's short window is checked often enough to fire within a sample or two). */
const MIN_CHECK_MS = 50;
const MAX_CHECK_MS = 1_000;
/** The job gets this long after SIGTERM, as a cancel from the app gives it by default. */
export const STOP_GRACE_MS = 10_000;

export interface GpuIdleWatchDeps {
  log: Pick<LogStore, 'append'>;
  /** The job's rule (configure, or D/job.json after a restart); undefined: none. */
  rule: () => GpuIdleRule | undefined;
  isRunPhaseRunning: () => boolean;
  /** Since when (monotonic) every GPU has read below `threshold`%; null: not now. */
  idleSince: (threshold: number) => number | null;
  /** Monotonic ms, and epoch ms for the record. */
  nowMono: () => number;
  now: () => number;
  /** Stops the run phase as `cancel` would, with the rule's words. */
  stopJob: (reason: string) => void;
  /** Whether the dead-man switch is armed (a Tender renewed it): only then can it fire. */
  isDeadManArmed: () => boolean;
  /** Fires the dead-man switch; false when it is not armed (any more). */
  fireDeadMan: (firing: Firing) => boolean;
  /** Resolves once what was logged is in the file and handed to subscribers. */
  flushLog: () => Promise<void>;
}

export class GpuIdleWatch {
  private timer: NodeJS.Timeout | undefined;
  private firedFor: number | null = null;

  constructor(private readonly d: GpuIdleWatchDeps) {}

  start(): void {
    if (this.timer) return;
    this.schedule();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One look; the timer calls it, a test may too. */
  check(): void {
    const rule = this.d.rule();
    const decision = decideGpuIdle({
      rule,
      isRunPhaseRunning: this.d.isRunPhaseRunning(),
      idleSince: rule ? this.d.idleSince(rule.belowPct) : null,
      firedFor: this.firedFor,
      now: this.d.nowMono(),
    });
    if (decision.kind !== 'fire' || !rule) return;
    this.firedFor = decision.since;
    this.fire(rule, decision.idleForMs);
  }

  private fire(rule: GpuIdleRule, idleForMs: number): void {
    const words = `every GPU under ${rule.belowPct}% for ${shortDuration(idleForMs)} while the job ran`;
    const reason = `GPU idle rule: ${words}`;
    const canTearDown = rule.then === 'teardown' && this.d.isDeadManArmed();
    const did: GpuIdleOutcome =
      rule.then === 'notify' ? 'notified' : canTearDown ? 'tearing_down' : 'stopped_job';
    const line =
      did === 'notified'
        ? `${reason}; the job goes on (then = "notify")`
        : did === 'tearing_down'
          ? `${reason}; tearing this node down (then = "teardown")`
          : rule.then === 'teardown'
            ? `${reason}; stopping the job: no teardown, the dead-man switch was never armed by a Tender (then = "teardown")`
            : `${reason}; stopping the job (then = "stop")`;
    const firing: GpuIdleFiring = { at: this.d.now(), rule, idleForMs, did, reason };
    // Logged before it acts: the record precedes the stop's lines and the phase's exit.
    this.d.log.append(GPU_IDLE_LOG_SOURCE, 'info', encodeGpuIdleFiring(firing));
    this.d.log.append('agent', 'info', line);
    if (did === 'stopped_job') this.d.stopJob(reason);
    if (did !== 'tearing_down') return;
    // The switch's teardown event goes to clients at once, ahead of the log's next batch;
    // a Tender that sees it may stop reading this node. The firing reaches them first.
    void this.d.flushLog().then(() => {
      if (!this.d.fireDeadMan({ cause: 'gpu_idle', reason })) this.d.stopJob(reason);
    });
  }

  private schedule(): void {
    const rule = this.d.rule();
    const every = rule
      ? Math.min(MAX_CHECK_MS, Math.max(MIN_CHECK_MS, rule.forMs / 4))
      : MAX_CHECK_MS;
    this.timer = setTimeout(() => {
      this.check();
      this.schedule();
    }, every);
    this.timer.unref();
  }
}
