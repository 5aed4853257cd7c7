import { DEFAULT_TIMING, type Timing } from './timing';
import { readDefaults } from './settings-store';

/** The timing in force: built-in, then the Settings defaults, then what the caller passed
 *  (tests). Settings changing take effect for later runs on `reload`. */
export class TimingStore {
  private timing: Timing;

  constructor(
    private readonly home: string,
    private readonly overrides: Partial<Timing> = {},
  ) {
    this.timing = this.read();
  }

  readonly current = (): Timing => this.timing;

  reload(): void {
    this.timing = this.read();
  }

  private read(): Timing {
    const d = readDefaults(this.home);
    const fromSettings: Partial<Timing> = {
      deadlines: { ...DEFAULT_TIMING.deadlines, connectMs: d.connectDeadlineMin * 60_000 },
      endpointDeadlineMs: d.endpointDeadlineMin * 60_000,
      maxBootAttempts: d.maxBootAttempts,
      cancelGraceMs: d.cancelGraceSec * 1_000,
    };
    return { ...DEFAULT_TIMING, ...fromSettings, ...this.overrides };
  }
}
