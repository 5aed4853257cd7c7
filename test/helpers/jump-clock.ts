import type { Provider } from '../../src-main/providers/provider';

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

  /** Each look Tender takes at a lease that is not up yet (`lookupEndpoint`) comes `stepMs`
   *  of this clock after the one before: a slow pull's minutes pass one per look, however
   *  fast or loaded the machine (time is tied to the looks, not to a timer). */
  stepOnLookup(provider: Pick<Provider, 'lookupEndpoint'>, stepMs: number): void {
    const look = provider.lookupEndpoint.bind(provider);
    provider.lookupEndpoint = (...args) => {
      this.jump(stepMs);
      return look(...args);
    };
  }
}
