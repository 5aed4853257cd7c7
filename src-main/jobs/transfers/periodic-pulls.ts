// While a job's run phase runs, its outputs (the declared paths and TENDER_OUTPUT) and its
// checkpoints are pulled every `checkpoint_every_s` (default 5 min), each only for what
// changed since the last pull (pack-outputs --have-stdin): a node lost mid-run loses at
// most one interval. Never two pulls at once, never holding the job; `stop()` waits for
// the one in flight, so the job's final collection never races it.

/** One round: pull what is due (each step reports its own outcome). */
export type PullRound = () => Promise<void>;

export const DEFAULT_PULL_EVERY_S = 300;

export class PeriodicPulls {
  private readonly timer: NodeJS.Timeout;
  private inFlight: Promise<void> | null = null;

  constructor(
    everyMs: number,
    private readonly round: PullRound,
  ) {
    this.timer = setInterval(() => this.tick(), everyMs);
    this.timer.unref();
  }

  private tick(): void {
    if (this.inFlight) return;
    this.inFlight = this.round()
      .catch(() => {})
      .finally(() => (this.inFlight = null));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.inFlight;
  }
}
