/** Real time plus the jumps a test makes: everything keeps moving by itself (sshd, timers,
 *  the agent), while the test skips the minutes a slow image pull takes. Hand the same
 *  clock to a fake marketplace and to the core, so both see the same minutes pass. */
export class JumpClock {
  private offset = 0;

  readonly now = (): number => Date.now() + this.offset;

  jump(ms: number): void {
    if (ms < 0) throw new Error('JumpClock: time does not go backwards');
    this.offset += ms;
  }

  /** Jumps `stepMs` every `everyMs` of real time while `isWaiting()` holds; returns a stop. */
  skipWhile(isWaiting: () => boolean, stepMs: number, everyMs = 50): () => void {
    const t = setInterval(() => {
      if (isWaiting()) this.jump(stepMs);
    }, everyMs);
    return () => clearInterval(t);
  }
}
