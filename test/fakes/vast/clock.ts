// The fake's sense of time. Status delays, visibility windows, key propagation and billing
// all read `now()`; a test that hands in a ManualClock decides when time passes, so none of
// those depend on the machine's speed. HTTP latency (a fault knob) is real time on purpose:
// it is about the wire, not about Vast's state.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Time that moves only when the test says so. Starts at a fixed date for readable dumps. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2025, 0, 1)) {}

  now(): number {
    return this.ms;
  }

  advance(ms: number): void {
    if (ms < 0) throw new Error('ManualClock: time does not go backwards');
    this.ms += ms;
  }
}
