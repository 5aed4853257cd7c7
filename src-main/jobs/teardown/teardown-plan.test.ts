import { describe, expect, it } from 'vitest';
import type { JobStatus, NodeStage } from '../../contract';
import { bareRecordIn } from '../../nodes/node-fixtures';
import { teardownOutcome, teardownPlan, type TeardownPlan } from './teardown-plan';

const WARM =
  'node kept warm: it stays listed and billed until it has been idle for the idle timeout, or `tender down`';
const KEPT = 'node kept (--keep): it stays listed and billed until `tender down`';

describe('teardownPlan: keep the node, or destroy it and why', () => {
  it.each<[boolean, NodeStage, string | null, boolean, JobStatus, TeardownPlan]>([
    // keep, stage, self-teardown, dead man, status → plan
    [true, 'dormant', null, true, 'completed', { kind: 'keep', note: WARM }],
    [true, 'dormant', null, false, 'failed', { kind: 'keep', note: KEPT }],
    [
      true,
      'dormant',
      'budget reached',
      true,
      'completed',
      { kind: 'destroy', reason: 'budget reached' },
    ],
    [true, 'failed', null, true, 'failed', { kind: 'destroy', reason: 'job failed' }],
    [true, 'destroying', null, true, 'failed', { kind: 'redo-destroy' }],
    [false, 'dormant', null, true, 'completed', { kind: 'destroy', reason: 'job completed' }],
    [false, 'dormant', null, false, 'failed', { kind: 'destroy', reason: 'job failed' }],
    [
      false,
      'dormant',
      'idle for 20 min',
      true,
      'completed',
      { kind: 'destroy', reason: 'idle for 20 min' },
    ],
    [false, 'destroying', null, true, 'completed', { kind: 'redo-destroy' }],
    [false, 'destroying', 'budget reached', true, 'failed', { kind: 'redo-destroy' }],
    [false, 'destroyed', null, false, 'failed', { kind: 'destroy', reason: 'job failed' }],
    [false, 'lease_requested', null, false, 'failed', { kind: 'destroy', reason: 'job failed' }],
  ])(
    'keep %s, %s, self-teardown %s, dead man %s, job %s',
    (keep, stage, selfTeardown, hasDeadMan, status, want) => {
      expect(teardownPlan({ keep, stage, selfTeardown, hasDeadMan, status })).toEqual(want);
    },
  );
});

describe('teardownOutcome: the teardown reports an unconfirmed destroy', () => {
  it.each([
    ['destroyed', null, null],
    ['destroying', 'HTTP 500', 'not confirmed destroyed: HTTP 500'],
    ['destroying', null, 'not confirmed destroyed: unknown error'],
  ] as const)('%s, last error %s → %s', (stage, lastError, error) => {
    expect(teardownOutcome(bareRecordIn(stage, { lastError }))).toEqual({
      type: 'TeardownComplete',
      error,
    });
  });
});
