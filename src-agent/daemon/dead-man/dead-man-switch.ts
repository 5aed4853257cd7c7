// The daemon's dead-man switch: armed by the first `lease`, renewed by every one, checked
// on a timer. When a deadline passes it fires, once, and the node tears itself down.
import type { LeaseParams, LeaseResult, SelfTeardown, TeardownRecord } from '../../wire/protocol';
import {
  type DeadManState,
  type Firing,
  defaultCheckMs,
  due,
  nextDeadline,
  noteBusy,
  noteJobEnded,
  renewState,
} from './dead-man';
import { RequestError } from '../socket/request-checks';

export interface DeadManSwitchDeps {
  /** Monotonic ms (`performance.now`): a wall-clock jump changes no deadline. */
  nowMono: () => number;
  isPhaseRunning: () => boolean;
  /** While the job's run phase runs: since when (monotonic) every GPU has read below
   *  `threshold` percent; null when one did not, none was read, or no run phase runs. */
  gpuIdleSince?: (threshold: number) => number | null;
  /** The daemon is stopping on request (`shutdown`, SIGTERM): nothing is due any more. */
  isShuttingDown: () => boolean;
  /** The record of a teardown already begun (by this daemon or an earlier one), or null. */
  firedRecord: () => TeardownRecord | null;
  /** Forgets a firing that kept the node whole (`outputs_kept`): a Tender came back. */
  reopen?: () => void;
  /** Records the firing and starts the teardown. */
  onFire: (firing: Firing, teardown: SelfTeardown) => void;
}

export class DeadManSwitch {
  private state: DeadManState | undefined;
  private timer: NodeJS.Timeout | undefined;
  private checkMs = 0;

  constructor(private readonly deps: DeadManSwitchDeps) {}

  /** Arms or renews; refused once the switch has fired or the daemon is stopping. */
  renew(policy: LeaseParams): LeaseResult {
    let fired = this.deps.firedRecord();
    // The switch fired with the outputs kept on a machine that does not bill: a Tender
    // renewing now has come for them, so the node is in use again.
    if (fired?.state === 'outputs_kept' && this.deps.reopen) {
      this.deps.reopen();
      fired = null;
    }
    if (fired) {
      throw new RequestError(
        'shutting_down',
        `the dead-man switch fired (${fired.reason}); this node is being torn down (${fired.state})`,
      );
    }
    if (this.deps.isShuttingDown()) {
      throw new RequestError('shutting_down', 'the agent is shutting down');
    }
    const now = this.deps.nowMono();
    const isRunning = this.deps.isPhaseRunning();
    this.state = renewState(this.state, policy, now);
    if (isRunning) this.state = noteBusy(this.state, now);
    this.schedule(policy.checkMs ?? defaultCheckMs(policy.graceMs));
    return nextDeadline(this.state, now, isRunning, this.gpuIdleSince(policy));
  }

  /** A phase started or ended: the node was busy until now; `jobEnded`: the run phase
   *  exited (its outputs now wait for a Tender). */
  onPhaseChange(jobEnded = false): void {
    if (!this.state) return;
    const now = this.deps.nowMono();
    this.state = jobEnded ? noteJobEnded(this.state, now) : noteBusy(this.state, now);
  }

  /** Armed by a renewal, and free to fire (not stopping). */
  isArmed(): boolean {
    return this.state !== undefined && !this.deps.isShuttingDown();
  }

  /** Fires now, for a rule outside the switch's own deadlines (the GPU idle rule's
   *  `teardown`), with the teardown the last renewal named. false: the switch is not armed
   *  (no Tender ever renewed it) or the daemon is stopping, so nothing was started. */
  fireNow(firing: Firing): boolean {
    if (!this.state || this.deps.isShuttingDown()) return false;
    const { teardown } = this.state.policy;
    this.disarm();
    this.deps.onFire(firing, teardown);
    return true;
  }

  disarm(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.state = undefined;
    this.checkMs = 0;
  }

  private gpuIdleSince(policy: LeaseParams): number | null {
    const below = policy.idleGpuUtilBelow;
    return below == null ? null : (this.deps.gpuIdleSince?.(below) ?? null);
  }

  private schedule(checkMs: number): void {
    if (this.timer && checkMs === this.checkMs) return;
    clearInterval(this.timer);
    this.checkMs = checkMs;
    // Deliberately not unref'd: an armed switch must never let the daemon idle out.
    this.timer = setInterval(() => this.check(), checkMs);
  }

  private check(): void {
    if (!this.state || this.deps.isShuttingDown()) return;
    const now = this.deps.nowMono();
    const isRunning = this.deps.isPhaseRunning();
    if (isRunning) this.state = noteBusy(this.state, now);
    const firing = due(this.state, now, isRunning, this.gpuIdleSince(this.state.policy));
    if (!firing) return;
    const { teardown } = this.state.policy;
    this.disarm();
    this.deps.onFire(firing, teardown);
  }
}
