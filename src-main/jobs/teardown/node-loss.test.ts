import { describe, expect, it } from 'vitest';
import {
  interruptionOutcome,
  isDiskTeardownCurrent,
  isLeaseToActOn,
  isNodeLost,
  isTeardownToActOn,
  leaseGoneDecision,
  leaseGoneOutcome,
  selfTeardownAction,
} from './node-loss';

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

describe('isLeaseToActOn: once per lease, only the lease the job is on now', () => {
  it.each([
    ['the current lease, not yet acted on', 'l-1', 'l-1', [], true],
    ['the current lease, acted on before', 'l-1', 'l-1', ['l-1'], false],
    ['a lease a recovery replaced', 'l-1', 'l-2', [], false],
    ['a replaced lease acted on before', 'l-1', 'l-2', ['l-1'], false],
  ])('%s → %s', (_, label, currentLabel, acted, want) => {
    expect(isLeaseToActOn({ label, currentLabel, actedOn: new Set(acted) })).toBe(want);
  });
});

describe("leaseGoneOutcome: a lease gone, with its provider's words for why", () => {
  const lost = (explained: string | null, isJobDone = false) =>
    leaseGoneDecision({ explained, detail: 'EOF', isJobDone });
  it.each([
    [
      'no words: a machine lost',
      null,
      lost(null),
      {
        kind: 'lost',
        action: 'job-lost',
        reason: 'the lease is gone (EOF)',
        isHostToRemember: true,
      },
    ],
    [
      'its provider says node lost',
      { words: 'node failure', cause: 'node_lost' },
      lost(null),
      {
        kind: 'lost',
        action: 'job-lost',
        reason: 'the lease is gone (EOF)',
        isHostToRemember: true,
      },
    ],
    [
      'preempted',
      { words: 'spot reclaimed', cause: 'preempted' },
      lost(null),
      { kind: 'preempted', reason: 'spot reclaimed' },
    ],
    [
      'ended on purpose',
      { words: 'the time limit was reached', cause: 'ended' },
      lost(null),
      { kind: 'ended', reason: 'the time limit was reached' },
    ],
    [
      'its own switch explains it',
      { words: 'x', cause: 'ended' },
      lost('budget reached'),
      { kind: 'self-teardown', action: 'job-lost', words: 'budget reached' },
    ],
    [
      'a kept node gone after its job',
      { words: 'x', cause: 'ended' },
      lost(null, true),
      {
        kind: 'lost',
        action: 'destroy-node',
        reason: 'the lease is gone (EOF)',
        isHostToRemember: false,
      },
    ],
  ] as const)('%s', (_, why, loss, want) => {
    expect(leaseGoneOutcome(why, loss)).toEqual(want);
  });
});

describe('interruptionOutcome: what the reconciler recorded of a lease whose link dropped', () => {
  it.each([
    [null, [], { kind: 'look-again' }],
    ['outbid', [], { kind: 'wait' }],
    ['stopped', ['node_lost'], { kind: 'wait' }],
    [
      'outbid',
      ['preempted'],
      {
        kind: 'lost',
        cause: 'preempted',
        reason: 'the provider says outbid',
        isHostToRemember: false,
      },
    ],
    [
      'exited',
      [],
      {
        kind: 'lost',
        cause: 'node_lost',
        reason: 'the provider says exited',
        isHostToRemember: true,
      },
    ],
    [
      'exited',
      ['node_lost'],
      {
        kind: 'lost',
        cause: 'node_lost',
        reason: 'the provider says exited',
        isHostToRemember: true,
      },
    ],
  ] as const)('taken %s, recover on %j', (taken, recoverOn, want) => {
    expect(interruptionOutcome({ taken, recoverOn })).toEqual(want);
  });
});

describe('isDiskTeardownCurrent: a teardown record on disk is acted on only if nothing moved', () => {
  const base = {
    isDetached: false,
    isJobDone: false,
    attemptAtLook: 0,
    attemptNow: 0,
    isSelfTeardownKnown: false,
    isLeaseToActOn: true,
  };
  it.each([
    ['nothing moved', {}, true],
    ['detached meanwhile', { isDetached: true }, false],
    ['the job ended', { isJobDone: true }, false],
    ['a recovery began', { attemptNow: 1 }, false],
    ['the switch already known', { isSelfTeardownKnown: true }, false],
    ['the lease acted on or replaced', { isLeaseToActOn: false }, false],
  ])('%s → %s', (_, change, want) => {
    expect(isDiskTeardownCurrent({ ...base, ...change })).toBe(want);
  });
});
