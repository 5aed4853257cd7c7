import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LeaseParams } from '../../../src-agent/wire/protocol';
import { DeadManRenewer } from './dead-man-renewer';

const PARAMS: LeaseParams = {
  graceMs: 1_000,
  afterJob: 'destroy',
  teardown: { kind: 'remove-files' },
};

afterEach(() => vi.useRealTimers());

describe('DeadManRenewer', () => {
  it('renews at once, then every period, one at a time', async () => {
    vi.useFakeTimers();
    const sent: LeaseParams[] = [];
    const r = new DeadManRenewer({
      send: async (p) => (sent.push(p), { firesInMs: 1_000, cause: 'unreachable' }),
      params: () => PARAMS,
      onRenewed: () => {},
      onFailed: () => {},
      everyMs: 250,
    });
    r.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toHaveLength(5);
    r.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toHaveLength(5);
  });

  it('tells a streak of failures once and keeps trying', async () => {
    vi.useFakeTimers();
    let fail = true;
    const failed: string[] = [];
    const renewed: number[] = [];
    const r = new DeadManRenewer({
      send: async () => {
        if (fail) throw new Error('link down');
        return { firesInMs: 1_000, cause: 'unreachable' };
      },
      params: () => PARAMS,
      onRenewed: () => renewed.push(1),
      onFailed: (m) => failed.push(m),
      everyMs: 100,
    });
    r.start();
    await vi.advanceTimersByTimeAsync(350);
    expect(failed).toEqual(['link down']);
    fail = false;
    await vi.advanceTimersByTimeAsync(100);
    expect(renewed.length).toBeGreaterThan(0);
    r.stop();
  });

  it('records a renewal the agent acknowledged after the renewer was stopped', async () => {
    let ack!: () => void;
    const renewed: LeaseParams[] = [];
    const r = new DeadManRenewer({
      send: () =>
        new Promise((resolve) => (ack = () => resolve({ firesInMs: 1_000, cause: 'idle' }))),
      params: () => PARAMS,
      onRenewed: (p) => renewed.push(p),
      onFailed: () => {},
      everyMs: 100,
    });
    const inFlight = r.renewNow();
    r.stop(); // the job's process closes while the renewal that says the job ended is in flight
    ack();
    await inFlight;
    expect(renewed).toEqual([PARAMS]);
  });

  it('arms nothing for a run without a policy', async () => {
    const send = vi.fn();
    const r = new DeadManRenewer({
      send,
      params: () => null,
      onRenewed: () => {},
      onFailed: () => {},
      everyMs: 10,
    });
    r.start();
    await r.renewNow();
    expect(send).not.toHaveBeenCalled();
  });
});
