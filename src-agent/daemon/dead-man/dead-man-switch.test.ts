import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LeaseParams, SelfTeardown, TeardownRecord } from '../../wire/protocol';
import type { Firing } from './dead-man';
import { DeadManSwitch } from './dead-man-switch';

const policy: LeaseParams = {
  graceMs: 1_000,
  afterJob: 'keep_warm',
  teardown: { kind: 'remove-files' },
  checkMs: 100,
};

/** A switch on vitest's fake clock; `fired` collects what it fired. */
function harness() {
  const fired: { firing: Firing; teardown: SelfTeardown }[] = [];
  let record: TeardownRecord | null = null;
  const world = {
    isRunning: false,
    isShuttingDown: false,
    gpuIdleSince: null as number | null,
    thresholds: [] as number[],
  };
  const sw = new DeadManSwitch({
    nowMono: () => Date.now(),
    isPhaseRunning: () => world.isRunning,
    gpuIdleSince: (threshold) => {
      world.thresholds.push(threshold);
      return world.gpuIdleSince;
    },
    isShuttingDown: () => world.isShuttingDown,
    firedRecord: () => record,
    onFire: (firing, teardown) => {
      fired.push({ firing, teardown });
      record = { ...firing, at: Date.now(), state: 'stopping_job' };
    },
  });
  return { sw, fired, world };
}

beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => vi.useRealTimers());

describe('DeadManSwitch', () => {
  it('is not armed until the first lease', () => {
    const { fired } = harness();
    vi.advanceTimersByTime(60_000);
    expect(fired).toEqual([]);
  });

  it('fires once, within one check of the grace, and refuses renewals after', () => {
    const { sw, fired } = harness();
    expect(sw.renew(policy)).toEqual({ firesInMs: 1_000, cause: 'unreachable' });
    vi.advanceTimersByTime(999);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(101);
    expect(fired).toEqual([
      {
        firing: { cause: 'unreachable', reason: 'app unreachable for 1.0 s' },
        teardown: { kind: 'remove-files' },
      },
    ]);
    vi.advanceTimersByTime(10_000);
    expect(fired).toHaveLength(1);
    expect(() => sw.renew(policy)).toThrow(/dead-man switch fired \(app unreachable/);
  });

  it('stays quiet while renewed, and fires a grace after the last renewal', () => {
    const { sw, fired } = harness();
    for (let i = 0; i < 20; i++) {
      sw.renew(policy);
      vi.advanceTimersByTime(500);
    }
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(600);
    expect(fired.map((f) => f.firing.cause)).toEqual(['unreachable']);
  });

  it('restarts the idle clock when a phase ends, and never idles while one runs', () => {
    const { sw, fired, world } = harness();
    const idle = { ...policy, graceMs: 60_000, idleTimeoutMs: 1_000 };
    world.isRunning = true;
    sw.renew(idle);
    vi.advanceTimersByTime(5_000);
    expect(fired).toEqual([]);
    world.isRunning = false;
    sw.onPhaseChange();
    vi.advanceTimersByTime(900);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(200);
    expect(fired.map((f) => f.firing.cause)).toEqual(['idle']);
  });

  it('fires idle on a running job whose GPUs sat below the threshold for idle_timeout', () => {
    const { sw, fired, world } = harness();
    world.isRunning = true;
    sw.renew({ ...policy, graceMs: 60_000, idleTimeoutMs: 1_000, idleGpuUtilBelow: 5 });
    vi.advanceTimersByTime(5_000);
    expect(fired).toEqual([]); // GPUs busy
    world.gpuIdleSince = Date.now();
    vi.advanceTimersByTime(900);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(200);
    expect(fired.map((f) => f.firing.cause)).toEqual(['idle']);
    expect(fired[0]!.firing.reason).toMatch(/^GPU-idle: every GPU below 5%/);
    expect(new Set(world.thresholds)).toEqual(new Set([5]));
  });

  it('never asks about the GPUs without a threshold, and a running job then never idles', () => {
    const { sw, fired, world } = harness();
    world.isRunning = true;
    world.gpuIdleSince = 0;
    sw.renew({ ...policy, graceMs: 60_000, idleTimeoutMs: 1_000 });
    vi.advanceTimersByTime(30_000);
    expect(fired).toEqual([]);
    expect(world.thresholds).toEqual([]);
  });

  it('does nothing once the daemon shuts down or is disarmed', () => {
    const a = harness();
    a.sw.renew(policy);
    a.world.isShuttingDown = true;
    vi.advanceTimersByTime(5_000);
    expect(a.fired).toEqual([]);
    expect(() => a.sw.renew(policy)).toThrow(/shutting down/);

    const b = harness();
    b.sw.renew(policy);
    b.sw.disarm();
    vi.advanceTimersByTime(5_000);
    expect(b.fired).toEqual([]);
  });
});
