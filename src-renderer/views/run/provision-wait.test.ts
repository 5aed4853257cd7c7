import { describe, expect, it } from 'vitest';
import type { NodeStage } from '../../../src-main/contract';
import { duration } from '../../lib/format';
import { provisionWaitText } from './provision-wait';

const T = 1_800_000_000_000;
const node = (stage: NodeStage, deadlineAt: number | null) => ({
  stage,
  stages: [
    { stage: 'new' as const, at: T - 1_000 },
    { stage: 'lease_requested' as const, at: T },
    { stage, at: T + 5_000 },
  ],
  stageSince: T + 5_000,
  deadlineAt,
});

describe('the wait while a lease provisions', () => {
  it.each<[NodeStage, number | null, number, string | null]>([
    [
      'lease_created',
      T + 600_000,
      T + 80_000,
      `waiting ${duration(80_000)} · gives up in ${duration(520_000)}`,
    ],
    ['lease_created', null, T + 80_000, `waiting ${duration(80_000)}`],
    [
      'endpoint_known',
      T + 60_000,
      T + 90_000,
      `waiting ${duration(90_000)} · over its deadline by ${duration(30_000)}`,
    ],
    ['bootstrap_running', null, T + 2_000, `waiting ${duration(2_000)}`],
    ['dormant', null, T + 80_000, null],
    ['destroyed', null, T + 80_000, null],
  ])('%s (deadline %s) at %s: %s', (stage, deadlineAt, now, want) => {
    expect(provisionWaitText(node(stage, deadlineAt), now)).toBe(want);
  });
});
