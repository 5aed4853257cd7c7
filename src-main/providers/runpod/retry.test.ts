import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_RETRY,
  parseRetryAfter,
  verdictFor,
  withRetry,
  type Clock,
  type Failure,
} from './retry';

describe('verdictFor: the retry table', () => {
  it.each<[Failure, boolean, string]>([
    [{ kind: 'status', status: 429 }, true, 'retry'],
    [{ kind: 'status', status: 429 }, false, 'retry'],
    [{ kind: 'status', status: 500 }, true, 'retry'],
    [{ kind: 'status', status: 503 }, false, 'outcome-unknown'],
    [{ kind: 'status', status: 400 }, true, 'final'],
    [{ kind: 'status', status: 401 }, false, 'final'],
    [{ kind: 'network', code: 'ECONNREFUSED' }, false, 'retry'],
    [{ kind: 'network', code: 'ECONNRESET' }, true, 'retry'],
    [{ kind: 'network', code: 'ECONNRESET' }, false, 'outcome-unknown'],
    [{ kind: 'network', code: null }, false, 'outcome-unknown'],
    [{ kind: 'timeout' }, true, 'retry'],
    [{ kind: 'timeout' }, false, 'outcome-unknown'],
  ])('%j idempotent=%s → %s', (failure, idempotent, verdict) => {
    expect(verdictFor(failure, idempotent)).toBe(verdict);
  });
});

describe('backoff and Retry-After', () => {
  it('doubles from the base, capped, with equal jitter', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, DEFAULT_RETRY, () => 1))).toEqual([
      1000, 2000, 4000, 8000, 15000, 15000,
    ]);
    expect(backoffDelay(0, DEFAULT_RETRY, () => 0)).toBe(500);
  });

  it('reads delta-seconds and HTTP dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });
});

function fakeClock(): Clock & { slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: (ms) => {
      slept.push(ms);
      t += ms;
      return Promise.resolve();
    },
  };
}

describe('withRetry', () => {
  const signal = new AbortController().signal;

  it('waits a Retry-After longer than the backoff in full', async () => {
    const clock = fakeClock();
    let n = 0;
    const value = await withRetry(
      () =>
        Promise.resolve(
          n++ < 1
            ? { ok: false, retryable: true, error: new Error('429'), retryAfterMs: 7000 }
            : { ok: true, value: 'ok' },
        ),
      { policy: DEFAULT_RETRY, clock, random: () => 0, signal, giveUp: (e) => e },
    );
    expect(value).toBe('ok');
    expect(clock.slept).toEqual([7000]);
  });

  it('gives up when the next wait would pass the deadline, and never retries a final failure', async () => {
    const clock = fakeClock();
    const policy = { baseDelayMs: 1000, maxDelayMs: 1000, deadlineMs: 2500 };
    await expect(
      withRetry(
        () => Promise.resolve({ ok: false as const, retryable: true, error: new Error('busy') }),
        {
          policy,
          clock,
          random: () => 1,
          signal,
          giveUp: (e, attempts) => new Error(`${e.message} x${attempts}`),
        },
      ),
    ).rejects.toThrow('busy x3');
    let calls = 0;
    await expect(
      withRetry(
        () => (
          calls++,
          Promise.resolve({ ok: false as const, retryable: false, error: new Error('final') })
        ),
        {
          policy,
          clock: fakeClock(),
          random: () => 1,
          signal,
          giveUp: (e) => e,
        },
      ),
    ).rejects.toThrow('final');
    expect(calls).toBe(1);
  });
});
