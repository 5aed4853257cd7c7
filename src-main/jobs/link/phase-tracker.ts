import type { Phase, PhaseState } from '../../../src-agent/wire/protocol';

/** The agent's phases as last reported over the link, and waits on a phase's exit. A
 *  phase may exit before anyone waits on it (a resumed job, a fast command): the wait then
 *  resolves at once. */
export class PhaseTracker {
  private readonly phases = new Map<Phase, PhaseState>();
  private readonly waiters = new Map<Phase, ((s: PhaseState) => void)[]>();

  observe(st: PhaseState): void {
    this.phases.set(st.phase, st);
    if (st.state !== 'exited') return;
    for (const resolve of this.waiters.get(st.phase) ?? []) resolve(st);
    this.waiters.delete(st.phase);
  }

  /** Replaces what is known with a fresh snapshot (a `status` answer); waits stay. */
  reset(states: (PhaseState | null | undefined)[]): void {
    this.phases.clear();
    for (const st of states) if (st) this.observe(st);
  }

  /** The agent reported `phase` (running or exited). */
  has(phase: Phase): boolean {
    return this.phases.has(phase);
  }

  /** Phases the agent last reported running. */
  running(): Phase[] {
    return [...this.phases.values()].filter((p) => p.state === 'running').map((p) => p.phase);
  }

  exited(phase: Phase): Promise<PhaseState> {
    const known = this.phases.get(phase);
    if (known?.state === 'exited') return Promise.resolve(known);
    return new Promise((resolve) =>
      this.waiters.set(phase, [...(this.waiters.get(phase) ?? []), resolve]),
    );
  }
}
