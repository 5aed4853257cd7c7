import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  LaunchSpacing,
  verdictFor,
  withRetry,
  type Clock,
  type Failure,
} from './retry';

describe('Lambda retry verdicts', () => {
  it.each<[Failure, boolean, string]>([
    [{ kind: 'status', status: 429 }, true, 'retry'],
    [{ kind: 'status', status: 429 }, false, 'retry'], // the limiter ran nothing
    [{ kind: 'status', status: 500 }, true, 'retry'],
    [{ kind: 'status', status: 503 }, false, 'outcome-unknown'],
    [{ kind: 'status', status: 400 }, true, 'final'],
    [{ kind: 'status', status: 404 }, false, 'final'],
    [{ kind: 'network', code: 'ECONNREFUSED' }, false, 'retry'],
    [{ kind: 'network', code: 'ECONNRESET' }, false, 'outcome-unknown'],
    [{ kind: 'network', code: 'ECONNRESET' }, true, 'retry'],
    [{ kind: 'timeout' }, false, 'outcome-unknown'],
    [{ kind: 'timeout' }, true, 'retry'],
  ])('%j idempotent=%s → %s', (failure, idempotent, verdict) => {
    expect(verdictFor(failure, idempotent)).toBe(verdict);
  });

  it('backs off exponentially with equal jitter, capped', () => {
    const p = { baseDelayMs: 1000, maxDelayMs: 5000, deadlineMs: 60_000 };
    expect(backoffDelay(0, p, () => 0)).toBe(500);
    expect(backoffDelay(0, p, () => 1)).toBe(1000);
    expect(backoffDelay(2, p, () => 0)).toBe(2000);
    expect(backoffDelay(10, p, () => 1)).toBe(5000);
  });

  it('gives up at the deadline with the last error', async () => {
    let t = 0;
    const clock: Clock = { now: () => t, sleep: async (ms) => void (t += ms) };
    let attempts = 0;
    const run = withRetry(
      async () => {
        attempts++;
        return { ok: false as const, retryable: true, error: new Error('429') };
      },
      {
        policy: { baseDelayMs: 100, maxDelayMs: 100, deadlineMs: 1000 },
        clock,
        random: () => 1,
        signal: new AbortController().signal,
        giveUp: (last, n) => new Error(`${last.message} after ${n}`),
      },
    );
    await expect(run).rejects.toThrow('429 after 11');
    expect(attempts).toBe(11);
  });

  it('spaces launches apart, each in its turn', async () => {
    let t = 0;
    const waits: number[] = [];
    const clock: Clock = {
      now: () => t,
      sleep: async (ms) => {
        waits.push(ms);
        t += ms;
      },
    };
    const spacing = new LaunchSpacing(12_000, clock);
    const signal = new AbortController().signal;
    await spacing.take(signal);
    await spacing.take(signal);
    t += 30_000;
    await spacing.take(signal);
    expect(waits).toEqual([12_000]);
  });
});
