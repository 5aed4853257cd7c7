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
