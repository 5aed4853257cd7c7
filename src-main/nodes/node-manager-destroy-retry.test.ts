// The NodeManager retries a failed destroy with backoff until it is confirmed (on fake
// timers, not the clock), and drops a waiting retry when it stops.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { baseTiming, cleanUpRigs, rig, upAndRunning } from './node-manager.test-util';
import { NodeManager } from './node-manager';
import { destroyRetryDelay } from './transition';

afterEach(cleanUpRigs);

describe('NodeManager: destroy retries with backoff until confirmed', () => {
  it.each([1, 0.5])('retries after 2 s, 4 s, 8 s (× %s), then confirms', async (scale) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const r = rig({ deps: { timing: { ...baseTiming, destroyRetryScale: scale } } });
    await upAndRunning(r);
    r.provider.destroyFailures = 3;
    const destroys = () => r.provider.calls.filter((c) => c.startsWith('destroyLease')).length;

    r.manager.send({ type: 'Destroy', reason: 'run ended' });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const rec = await r.manager.waitFor((x) => x.destroyAttempts === attempt);
      expect(rec.stage).toBe('destroying');
      expect(destroys()).toBe(attempt);
      const delay = destroyRetryDelay(attempt) * scale;
      await vi.advanceTimersByTimeAsync(delay - 1);
      expect(destroys()).toBe(attempt);
      await vi.advanceTimersByTimeAsync(1);
      expect(destroys()).toBe(attempt + 1);
    }
    await r.manager.waitFor((x) => x.stage === 'destroyed');
    expect(r.manager.record.stage).toBe('destroyed');
    expect(r.journal().filter((m) => m === 'DestroyFailed')).toHaveLength(3);
  });

  it('a retry waiting when the manager stops never runs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const r = rig();
    await upAndRunning(r);
    r.provider.destroyFailures = 1;
    r.manager.send({ type: 'Destroy', reason: 'run ended' });
    await r.manager.waitFor((x) => x.destroyAttempts === 1);

    r.manager.stop();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(r.provider.calls.filter((c) => c.startsWith('destroyLease'))).toHaveLength(1);
    expect(r.manager.record.stage).toBe('destroying');
  });
});

describe('NodeManager: a destroy that answers "gone" is its own confirmation', () => {
  it.each([
    [false, 1],
    [true, 0],
  ])('the destroy answers gone: %s → isGone asked %i time(s)', async (answersGone, asked) => {
    const r = rig();
    await upAndRunning(r);
    r.provider.destroyAnswersGone = answersGone;
    r.manager.send({ type: 'Destroy', reason: 'run ended' });
    await r.manager.waitFor((x) => x.stage === 'destroyed');
    expect(r.provider.calls.filter((c) => c.startsWith('destroyLease'))).toHaveLength(1);
    expect(r.provider.isGoneAsked).toBe(asked);
  });
});

describe('NodeManager: a lease another manager destroyed is never destroyed twice', () => {
  it('a stale manager told Destroy takes the ledger’s destroyed record instead', async () => {
    const r = rig();
    await upAndRunning(r);
    // A teardown's own manager of the same node destroys the lease, confirmed.
    const other = new NodeManager(r.manager.record, { ...r.manager['deps'] });
    other.send({ type: 'Destroy', reason: 'tear down all' });
    await other.waitFor((x) => x.stage === 'destroyed');
    const destroys = () => r.provider.calls.filter((c) => c.startsWith('destroyLease')).length;
    expect(destroys()).toBe(1);
    expect(r.manager.record.stage).toBe('dormant'); // the kept job's manager still holds the old record

    r.manager.send({ type: 'Destroy', reason: 'lease gone' });
    await r.manager.waitFor((x) => x.stage === 'destroyed');
    expect(destroys()).toBe(1);
    expect(r.manager.record.destroyAttempts).toBe(other.record.destroyAttempts);
    expect(r.journal().filter((m) => m === 'Destroy')).toHaveLength(1);
  });
});
