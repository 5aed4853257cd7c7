import { describe, expect, it } from 'vitest';
import type { NodeStage } from '../../../src-main/contract';
import { duration } from '../../lib/format';
import { provisionWaitText, pullLineOf, pullTitle } from './provision-wait';

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

const pull = {
  line: 'loading: Downloading 6.8GB/15GB',
  isImagePull: true,
  doneBytes: 6.8e9,
  totalBytes: 15e9,
  percent: 45.3,
  since: T,
  pullingSince: T + 1_000,
  lastProgressAt: T + 60_000,
  givesUpAt: T + 660_000,
  stallMs: 600_000,
};

describe('what the provider says of a lease that provisions', () => {
  it.each<[string, NodeStage, typeof pull | null, string | null]>([
    ['a pull with its bytes', 'lease_created', pull, 'loading: Downloading 6.8GB/15GB (45%)'],
    [
      'a percentage said outright',
      'lease_created',
      { ...pull, line: 'loading 45%', percent: 45 },
      'loading 45%',
    ],
    ['nothing said yet', 'lease_created', null, null],
    ['up: no longer shown', 'endpoint_known', pull, null],
  ])('%s', (_n, stage, p, want) => {
    expect(pullLineOf({ stage, pull: p })).toBe(want);
  });

  it('says the rule in its tooltip', () => {
    expect(pullTitle(pull)).toBe(
      `loading: Downloading 6.8GB/15GB\nThe image is being pulled: Tender waits as long as it makes progress, and gives the host up after ${duration(600_000)} without any (pull_stall).`,
    );
    expect(pullTitle({ ...pull, isImagePull: false, line: 'booting' })).toBe(
      'booting\nWhat the provider says of the lease.',
    );
  });
});
