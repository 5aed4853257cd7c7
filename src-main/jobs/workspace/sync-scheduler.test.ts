import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { SyncScheduler } from './sync-scheduler';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A sync that stays in progress until the test ends it. */
function controlledSync() {
  const ends: (() => void)[] = [];
  let active = 0;
  let maxActive = 0;
  const sync = vi.fn(async () => {
    active++;
    maxActive = Math.max(maxActive, active);
    await new Promise<void>((r) => ends.push(r));
    active--;
  });
  return {
    sync,
    finishOne: async () => {
      ends.shift()!();
      await vi.advanceTimersByTimeAsync(0);
    },
    get maxActive() {
      return maxActive;
    },
  };
}

const timing = { quietMs: 300, maxWaitMs: 3000 };

describe('SyncScheduler', () => {
  test('a burst of changes becomes one sync, once the folder is quiet', async () => {
    const c = controlledSync();
    const s = new SyncScheduler(c.sync, Date.now, timing);
    for (let i = 0; i < 5; i++) {
      s.changed();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(c.sync).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(300);
    expect(c.sync).toHaveBeenCalledTimes(1);
    await c.finishOne();
    await s.stop();
  });

  test('changes during a sync give exactly one more sync after it, never two at once', async () => {
    const c = controlledSync();
    const s = new SyncScheduler(c.sync, Date.now, timing);
    s.changed();
    await vi.advanceTimersByTimeAsync(300);
    expect(c.sync).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 3; i++) {
      s.changed();
      await vi.advanceTimersByTimeAsync(400);
    }
    expect(c.sync).toHaveBeenCalledTimes(1);
    await c.finishOne();
    expect(c.sync).toHaveBeenCalledTimes(2);
    await c.finishOne();
    await vi.advanceTimersByTimeAsync(1000);
    expect(c.sync).toHaveBeenCalledTimes(2);
    expect(c.maxActive).toBe(1);
    await s.stop();
  });

  test('a folder that never goes quiet still syncs once the longest wait is up', async () => {
    const c = controlledSync();
    const s = new SyncScheduler(c.sync, Date.now, timing);
    for (let i = 0; i < 31; i++) {
      s.changed();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(c.sync).toHaveBeenCalledTimes(1);
    await c.finishOne();
    await s.stop();
  });

  test('stop waits for the sync in progress and schedules nothing more', async () => {
    const c = controlledSync();
    const s = new SyncScheduler(c.sync, Date.now, timing);
    s.changed();
    await vi.advanceTimersByTimeAsync(300);
    s.changed();
    let isStopped = false;
    const stopping = s.stop().then(() => (isStopped = true));
    await vi.advanceTimersByTimeAsync(1000);
    expect(isStopped).toBe(false);
    await c.finishOne();
    await stopping;
    expect(isStopped).toBe(true);
    expect(c.sync).toHaveBeenCalledTimes(1);
  });
});
