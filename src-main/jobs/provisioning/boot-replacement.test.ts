import { describe, expect, it } from 'vitest';
import { NodeStage } from '../../contract';
import { bareRecordIn, lease } from '../../nodes/node-fixtures';
import type { NodeRecord } from '../../ledger/node-record';
import {
  afterBoot,
  afterFailedLeaseDestroy,
  isBootFailure,
  isBootSettled,
  isDestroySettled,
} from './boot-replacement';

const onHost = { ...lease, leaseId: 'vastai:7', metadata: { machine_id: 'm-42' } };
const failedWith = (failedReason: string, extra: Partial<NodeRecord> = {}) =>
  bareRecordIn('failed', { lease: onHost, failedReason, ...extra });

describe('isBootSettled: provisioning has an answer', () => {
  const settled = new Set(['dormant', 'failed', 'destroying', 'destroyed']);
  it.each(NodeStage.options.map((s) => [s, settled.has(s)] as const))('%s → %s', (stage, want) => {
    expect(isBootSettled(bareRecordIn(stage))).toBe(want);
  });
});

describe('isDestroySettled: confirmed gone, or given up after the attempts allowed', () => {
  it.each([
    ['destroyed', 0, true],
    ['destroying', 0, false],
    ['destroying', 4, false],
    ['destroying', 5, true],
    ['destroying', 6, true],
    ['failed', 9, false],
    ['dormant', 9, false],
  ] as const)('%s after %i failed tries (max 5) → %s', (stage, attempts, want) => {
    expect(isDestroySettled(bareRecordIn(stage, { destroyAttempts: attempts }), 5)).toBe(want);
  });
});

describe('isBootFailure: the machine failed, not the provider or the job', () => {
  it.each([
    ['endpoint: no SSH endpoint within 10 min', {}, true],
    ['bootstrap boot_check_failed: no Node.js', {}, true],
    ['bootstrap: the session closed before the agent joined', {}, true],
    ['lease: no offers', {}, false],
    // A registry that refused the image's login: another host would be refused too.
    ['image: ghcr.io refused the login for lab-bot: check GHCR_TOKEN', {}, false],
    ['lease lost: the provider no longer lists it', { leaseLost: true }, false],
    ['endpoint: exited', { leaseLost: true }, false],
    ['endpoint: exited', { lease: null }, false],
    ['endpointless', {}, false],
  ] as const)('%s %o → %s', (reason, extra, want) => {
    expect(isBootFailure(failedWith(reason, extra))).toBe(want);
  });

  it('a node with no failure reason is no boot failure', () => {
    expect(isBootFailure(bareRecordIn('destroyed', { lease: onHost }))).toBe(false);
  });
});

describe('afterBoot: what a settled boot means for the job', () => {
  const bootFail = failedWith('bootstrap join_timeout: no hello in 60 s');
  it.each([
    ['dormant', bareRecordIn('dormant', { lease: onHost }), 3, { kind: 'ready' }],
    [
      'a lease refused',
      failedWith('lease: no offers'),
      3,
      { kind: 'fault', reason: 'lease: no offers' },
    ],
    [
      'destroyed under it',
      bareRecordIn('destroyed'),
      3,
      { kind: 'fault', reason: 'node destroyed' },
    ],
    ['destroying', bareRecordIn('destroying'), 3, { kind: 'fault', reason: 'node destroying' }],
    [
      'a boot failure where no replacement is allowed (1 lease)',
      bootFail,
      1,
      { kind: 'fault', reason: bootFail.failedReason },
    ],
    [
      'a boot failure on the third of 3 leases',
      { ...bootFail, attempt: 2 },
      3,
      { kind: 'fault', reason: bootFail.failedReason },
    ],
    [
      'a boot failure on the second of 3 leases',
      { ...bootFail, attempt: 1 },
      3,
      {
        kind: 'replace',
        reason: bootFail.failedReason,
        machine: 'm-42',
        note: 'boot failed on vastai:7 (host m-42): bootstrap join_timeout: no hello in 60 s; destroying it before trying another host',
      },
    ],
  ] as const)('%s → the decision', (_name, rec, max, want) => {
    expect(afterBoot(rec, max)).toEqual(want);
  });

  it('a host without a machine id is not named, and nothing is excluded', () => {
    const rec = failedWith('endpoint: exited', { lease: { ...onHost, metadata: {} } });
    expect(afterBoot(rec, 3)).toEqual({
      kind: 'replace',
      reason: 'endpoint: exited',
      machine: null,
      note: 'boot failed on vastai:7: endpoint: exited; destroying it before trying another host',
    });
  });
});

describe('afterFailedLeaseDestroy: a replacement only once the failed lease is gone', () => {
  const failure = { reason: 'endpoint: exited', machine: 'm-42' };
  it.each([
    ['destroyed', 0, { kind: 'replace', attempt: 1, excludeMachine: 'm-42' }],
    ['destroyed', 2, { kind: 'replace', attempt: 3, excludeMachine: 'm-42' }],
    [
      'destroying',
      0,
      {
        kind: 'fault',
        reason:
          'endpoint: exited; the failed lease is not confirmed destroyed, so no replacement was started',
      },
    ],
  ] as const)('%s (attempt %i) → decision', (stage, attempt, want) => {
    expect(afterFailedLeaseDestroy(bareRecordIn(stage, { attempt }), failure)).toEqual(want);
  });
});
