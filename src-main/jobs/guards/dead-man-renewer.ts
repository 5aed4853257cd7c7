import type { LeaseParams, LeaseResult } from '../../../src-agent/wire/protocol';

export interface RenewerDeps {
  /** The `lease` request over the agent link (waits for the link to be up). */
  send(params: LeaseParams): Promise<LeaseResult>;
  /** What to send now; null when the run has no policy (an old run): nothing is armed. */
  params(): LeaseParams | null;
  /** The agent acknowledged `params` (the ledger remembers it). */
  onRenewed(params: LeaseParams, result: LeaseResult): void;
  /** A renewal failed; the next one is still tried. Told once per streak of failures. */
  onFailed(message: string): void;
  everyMs: number;
}

/**
 * Renews a node's dead-man switch over the agent link every `everyMs`: renewal rides on the
 * existing link; there is no heartbeat channel of its own. One renewal in
 * flight at a time; a link that is down simply delays the next one, and if it stays down
 * past the grace the node destroys itself, which is the point.
 */
export class DeadManRenewer {
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private stopped = false;
  private failing = false;

  constructor(private readonly deps: RenewerDeps) {}

  start(): void {
    if (this.timer || this.stopped) return;
    void this.renewNow();
  }

  /** Renews at once (the policy changed: a job ended, outputs were collected). */
  renewNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.inFlight ??= this.renew().finally(() => {
      this.inFlight = null;
      this.schedule();
    });
    return this.inFlight;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.renewNow();
    }, this.deps.everyMs);
  }

  private async renew(): Promise<void> {
    const params = this.deps.params();
    if (!params) return this.stop();
    try {
      const result = await this.deps.send(params);
      // Recorded even when stopped meanwhile: the agent took these params (the job's end,
      // the idle timeout), and the views read what it was last told.
      this.failing = false;
      this.deps.onRenewed(params, result);
    } catch (err) {
      if (this.stopped) return;
      if (!this.failing) this.deps.onFailed((err as Error).message);
      this.failing = true;
    }
  }
}
