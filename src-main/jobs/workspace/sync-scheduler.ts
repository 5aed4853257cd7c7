// When `tender sync --watch` syncs: once the workspace has been quiet for a moment, so an
// editor's save (write, rename, chmod) or a `git checkout` becomes one sync, not dozens;
// never two at once, and changes that arrive during a sync get one more after it.

/** An editor's save burst is over well within this; a person notices no lag below it. */
export const QUIET_MS = 300;
/** A folder that never goes quiet (a file written all the time) still syncs this often. */
export const MAX_WAIT_MS = 3_000;

export class SyncScheduler {
  private timer: NodeJS.Timeout | null = null;
  private firstChangeAt: number | null = null;
  private running: Promise<void> | null = null;
  private hasMore = false;
  private isStopped = false;

  /** `sync` reports its own errors; a rejection is only logged away here. */
  constructor(
    private readonly sync: () => Promise<void>,
    private readonly now: () => number = Date.now,
    private readonly timing = { quietMs: QUIET_MS, maxWaitMs: MAX_WAIT_MS },
  ) {}

  /** Something in the workspace changed. */
  changed(): void {
    if (this.isStopped) return;
    const now = this.now();
    this.firstChangeAt ??= now;
    const deadline = this.firstChangeAt + this.timing.maxWaitMs;
    const delay = Math.max(0, Math.min(this.timing.quietMs, deadline - now));
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), delay);
  }

  /** Stops scheduling; resolves once a sync in progress (and none after it) has ended. */
  async stop(): Promise<void> {
    this.isStopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.running) await this.running;
  }

  private fire(): void {
    this.timer = null;
    if (this.running) {
      this.hasMore = true;
      return;
    }
    this.firstChangeAt = null;
    this.running = this.sync()
      .catch(() => {})
      .finally(() => {
        this.running = null;
        if (this.hasMore && !this.isStopped) {
          this.hasMore = false;
          this.fire();
        }
      });
  }
}
