import { describe, expect, it } from 'vitest';
import { limitsToPolicy, policyToLimits } from './draft-limits';

const limits = (patch: object) => ({
  budgetUsd: '',
  maxDuration: '',
  idleTimeout: '',
  unreachableGrace: '',
  ...patch,
});

describe('limitsToPolicy', () => {
  it('reads dollars and durations; "none" switches a limit off', () => {
    expect(
      limitsToPolicy(
        limits({
          budgetUsd: ' 12.50 ',
          maxDuration: '1h30m',
          idleTimeout: 'none',
          unreachableGrace: '20m',
        }),
      ),
    ).toEqual({
      policy: {
        budgetUsd: 12.5,
        maxDurationMs: 5_400_000,
        idleTimeoutMs: null,
        unreachableGraceMs: 1_200_000,
      },
      problems: {},
    });
    expect(limitsToPolicy(limits({ budgetUsd: 'none' })).policy).toEqual({ budgetUsd: null });
    expect(limitsToPolicy(limits({})).policy).toEqual({});
  });

  it('names what it cannot read, and refuses a node without a grace', () => {
    const { problems, policy } = limitsToPolicy(
      limits({ budgetUsd: '-3', maxDuration: '6 hours', unreachableGrace: 'none' }),
    );
    expect(Object.keys(problems).sort()).toEqual(['budgetUsd', 'maxDuration', 'unreachableGrace']);
    expect(policy).toEqual({});
  });

  it('round-trips through policyToLimits', () => {
    const policy = { budgetUsd: 3, maxDurationMs: 86_400_000, idleTimeoutMs: 1_800_000 };
    expect(limitsToPolicy(policyToLimits(policy)).policy).toEqual(policy);
  });
});

describe('the GPU idle rule fields', () => {
  it.each([
    ['off: no rule', {}, undefined, {}],
    [
      'an action alone: the defaults (10%, 30m)',
      { gpuIdleThen: 'stop' },
      { belowPct: 10, forMs: 1_800_000, then: 'stop' },
      {},
    ],
    [
      'every field',
      { gpuIdleThen: 'teardown', gpuIdleBelow: '5%', gpuIdleFor: '1h' },
      { belowPct: 5, forMs: 3_600_000, then: 'teardown' },
      {},
    ],
    ['a bad percent', { gpuIdleThen: 'notify', gpuIdleBelow: '0' }, undefined, ['gpuIdleBelow']],
    ['a bad window', { gpuIdleThen: 'notify', gpuIdleFor: 'none' }, undefined, ['gpuIdleFor']],
    ['fields left over with the rule off', { gpuIdleBelow: 'x' }, undefined, {}],
  ])('%s', (_name, patch, rule, problems) => {
    const out = limitsToPolicy(limits(patch));
    expect(out.policy.gpuIdle).toEqual(rule);
    expect(Array.isArray(problems) ? Object.keys(out.problems) : out.problems).toEqual(problems);
  });

  it('a job file’s rule round-trips through the composer', () => {
    const policy = { gpuIdle: { belowPct: 12.5, forMs: 5_400_000, then: 'notify' as const } };
    expect(policyToLimits(policy)).toMatchObject({
      gpuIdleThen: 'notify',
      gpuIdleBelow: '12.5',
      gpuIdleFor: '1h30m',
    });
    expect(limitsToPolicy(policyToLimits(policy)).policy).toEqual(policy);
  });
});
