import { describe, expect, it } from 'vitest';
import { isNodeLost, isTeardownToActOn, leaseGoneDecision, selfTeardownAction } from './node-loss';

describe('selfTeardownAction: the node said its dead-man switch fired', () => {
  it.each([
    // detached, already known, armed, job done → action
    [false, false, true, false, 'job-lost'],
    [false, false, true, true, 'destroy-node'],
    [true, false, true, false, 'ignore'],
    [true, false, true, true, 'ignore'],
    [false, true, true, false, 'ignore'],
    [false, true, true, true, 'ignore'],
    [false, false, false, false, 'ignore'],
    [false, false, false, true, 'ignore'],
  ] as const)(
    'detached %s, known %s, armed %s, job done %s → %s',
    (isDetached, isKnown, isArmed, isJobDone, want) => {
      expect(selfTeardownAction({ isDetached, isKnown, isArmed, isJobDone })).toBe(want);
    },
  );
});

describe('isNodeLost: a dropped link is a lost node only on proof', () => {
  it.each([
    [true, false, true],
    [false, false, false],
    [true, true, false],
    [false, true, false],
  ] as const)('lease gone %s, detached %s → %s', (isLeaseGone, isDetached, want) => {
    expect(isNodeLost({ isLeaseGone, isDetached })).toBe(want);
  });
});

describe('leaseGoneDecision: what a lease proven gone means', () => {
  it.each([
    [
      'the job running, nothing explains it',
      { explained: null, detail: 'EOF', isJobDone: false },
      { action: 'job-lost', reason: 'the lease is gone (EOF)', selfTeardown: null },
    ],
    [
      'a kept node, nothing explains it',
      { explained: null, detail: 'ssh exited', isJobDone: true },
      { action: 'destroy-node', reason: 'the lease is gone (ssh exited)', selfTeardown: null },
    ],
    [
      'the job running, its own switch explains it',
      { explained: 'app unreachable for 35 min', detail: 'EOF', isJobDone: false },
      {
        action: 'job-lost',
        reason: 'app unreachable for 35 min',
        selfTeardown: 'app unreachable for 35 min',
      },
    ],
    [
      'a kept node, its own switch explains it',
      { explained: 'idle for 20 min after the job', detail: 'EOF', isJobDone: true },
      {
        action: 'destroy-node',
        reason: 'idle for 20 min after the job',
        selfTeardown: 'idle for 20 min after the job',
      },
    ],
  ] as const)('%s', (_name, facts, want) => {
    expect(leaseGoneDecision(facts)).toEqual(want);
  });
});

describe("isTeardownToActOn: a switch's record found on a node whose agent does not answer", () => {
  it.each([
    // state → acted on (the lease destroyed, nothing collected)
    ['stopping_job', true], // cut short: the switch fired all the same
    ['destroying', true],
    ['destroy_requested', true],
    ['files_removed', true], // no per-instance credential: the instance bills on
    ['failed', true], // its own destroy failed: it bills on
    ['outputs_kept', false], // its agent stays for a Tender to collect
    ['stopping_instance', false], // stopped for its outputs: the next Tender starts it
    ['stop_requested', false],
  ] as const)('%s → %s', (state, want) => {
    expect(isTeardownToActOn(state)).toBe(want);
  });
});
