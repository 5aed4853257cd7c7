import { describe, expect, it } from 'vitest';
import type { LeasePolicy } from '../contract/policy';
import type { DeadManFacts } from '../ledger/rows';
import {
  inferSelfTeardown,
  renewalFacts,
  renewalParams,
  renewEveryMs,
  selfTeardownWords,
} from './dead-man';

const MIN = 60_000;
const T0 = 1_800_000_000_000;
const policy: LeasePolicy = {
  maxDurationMs: 6 * 60 * MIN,
  idleTimeoutMs: 20 * MIN,
  budgetUsd: 25,
  afterJob: 'destroy',
  unreachableGraceMs: 30 * MIN,
};
const input = {
  policy,
  leaseCreatedAt: T0,
  budgetDeadlineAt: T0 + 50 * MIN,
  inUse: true,
  collected: false,
  jobEndedAt: null,
  teardown: { kind: 'remove-files' } as const,
  now: T0 + 10 * MIN,
};

function facts(p: Partial<DeadManFacts>): DeadManFacts {
  return {
    graceMs: 30 * MIN,
    armedAt: T0,
    renewedAt: T0 + 60 * MIN,
    maxDeadlineAt: null,
    budgetDeadlineAt: null,
    idleTimeoutMs: null,
    afterJob: 'destroy',
    jobEndedAt: null,
    selfTeardown: null,
    ...p,
  };
}

describe('dead-man renewals', () => {
  it('renews a few times per grace, never more than once a minute nor in a tight loop', () => {
    expect(renewEveryMs(30 * MIN)).toBe(60_000);
    expect(renewEveryMs(2_000)).toBe(500);
    expect(renewEveryMs(100)).toBe(100);
  });

  it('sends deadlines relative to now: max duration from lease creation, budget from the burn', () => {
    expect(renewalParams(input)).toEqual({
      graceMs: 30 * MIN,
      maxDurationMs: 350 * MIN,
      budgetMs: 40 * MIN,
      afterJob: 'destroy',
      idleTimeoutMs: 20 * MIN,
      collectGraceMs: null,
      inUse: true,
      collected: false,
      teardown: { kind: 'remove-files' },
    });
  });

  it('sends idle_gpu_util_below only when the policy sets it', () => {
    expect(renewalParams(input)).not.toHaveProperty('idleGpuUtilBelow');
    expect(
      renewalParams({ ...input, policy: { ...policy, idleGpuUtilBelow: 5 } }).idleGpuUtilBelow,
    ).toBe(5);
  });

  it('a passed deadline is sent as 0, never negative; none as null', () => {
    const p = renewalParams({
      ...input,
      now: T0 + 7 * 60 * MIN,
      budgetDeadlineAt: null,
      policy: { ...policy, idleTimeoutMs: null },
    });
    expect(p.maxDurationMs).toBe(0);
    expect(p.budgetMs).toBeNull();
    expect(p.idleTimeoutMs).toBeNull();
  });

  it('remembers the first renewal and the absolute deadlines', () => {
    const f = renewalFacts(renewalParams(input), input.now, null, facts({ armedAt: T0 + 1 }));
    expect(f.armedAt).toBe(T0 + 1);
    expect(f.renewedAt).toBe(T0 + 10 * MIN);
    expect(f.maxDeadlineAt).toBe(T0 + 360 * MIN);
    expect(f.budgetDeadlineAt).toBe(T0 + 50 * MIN);
  });
});

describe('why a vanished node destroyed itself', () => {
  it('the node told us: its own words', () => {
    const r = inferSelfTeardown(
      facts({
        selfTeardown: {
          cause: 'idle',
          reason: 'idle for 20 min after the job',
          at: T0,
          state: 'destroying',
        },
      }),
      T0 + 999 * MIN,
    );
    expect(r).toEqual({
      reason: 'destroyed by its own dead-man switch: idle for 20 min after the job',
      at: T0,
    });
  });

  it('renewals stopped longer than the grace ago: app unreachable', () => {
    const r = inferSelfTeardown(facts({}), T0 + 95 * MIN);
    expect(r?.reason).toMatch(/^destroyed by its own dead-man switch: app unreachable for 30 min/);
    expect(r?.at).toBe(T0 + 90 * MIN);
  });

  it('a job running at the last renewal: it went out of sight, billed until now', () => {
    expect(inferSelfTeardown(facts({ inUse: true }), T0 + 85 * MIN)).toBeNull(); // within grace
    const r = inferSelfTeardown(facts({ inUse: true }), T0 + 300 * MIN);
    expect(r?.reason).toMatch(/its job ended while nobody was attached/);
    expect(r?.at).toBe(T0 + 300 * MIN);
    // A max duration that passed is still the earlier, known cause.
    const m = inferSelfTeardown(
      facts({ inUse: true, maxDeadlineAt: T0 + 200 * MIN }),
      T0 + 300 * MIN,
    );
    expect(m).toEqual({
      reason: 'destroyed by its own dead-man switch: max duration reached',
      at: T0 + 200 * MIN,
    });
  });

  it('the earliest passed deadline wins', () => {
    const r = inferSelfTeardown(facts({ budgetDeadlineAt: T0 + 70 * MIN }), T0 + 95 * MIN);
    expect(r).toEqual({
      reason: 'destroyed by its own dead-man switch: budget reached',
      at: T0 + 70 * MIN,
    });
  });

  it('keep_warm: idle after the job', () => {
    const r = inferSelfTeardown(
      facts({ afterJob: 'keep_warm', idleTimeoutMs: 5 * MIN, jobEndedAt: T0 + 61 * MIN }),
      T0 + 67 * MIN,
    );
    expect(r?.reason).toMatch(/idle for 5 min after the job/);
  });

  it('no deadline has passed: not the switch', () => {
    expect(inferSelfTeardown(facts({}), T0 + 80 * MIN)).toBeNull();
  });
});

describe('selfTeardownWords: what the ledger keeps for a node whose switch fired', () => {
  const fired = { reason: 'max duration 6h reached' };
  const own = 'destroyed by its own dead-man switch: max duration 6h reached';
  const removed =
    'max duration 6h reached: the node stopped its job and removed its files; lease destroyed by Tender';
  it.each([
    // record state, bills, destroys itself → words
    ['files_removed', true, false, removed], // Lambda: no per-instance credential
    ['stopping_job', true, false, removed], // told live, before it removed them
    ['destroy_requested', true, true, own], // Vast.ai, RunPod: their own key
    ['stopping_job', true, true, own],
    ['files_removed', false, false, own], // your own machine: that is its teardown
    ['failed', false, false, own],
  ] as const)('%s, bills %s, destroys itself %s', (state, bills, destroysItself, want) => {
    expect(selfTeardownWords({ ...fired, state }, { bills, destroysItself })).toBe(want);
  });

  it('a billed node whose own destroy failed says why, and that Tender destroyed it', () => {
    const rec = { ...fired, state: 'failed' as const, error: 'no Vast.ai instance credential' };
    expect(selfTeardownWords(rec, { bills: true, destroysItself: true })).toBe(
      'max duration 6h reached: the node stopped its job but could not tear itself down (no Vast.ai instance credential); lease destroyed by Tender',
    );
  });
});
