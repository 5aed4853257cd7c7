import { describe, expect, it } from 'vitest';
import { classifyPod, conditionOf, podReport } from './status';

const RUNTIME = {
  ports: [{ ip: '1.2.3.4', isIpPublic: true, privatePort: 22, publicPort: 10022, type: 'tcp' }],
};

describe('classifyPod: desiredStatus × runtime', () => {
  it.each([
    ['RUNNING', RUNTIME, 'running'],
    ['RUNNING', null, 'starting'],
    ['CREATED', null, 'starting'],
    ['RESTARTING', null, 'starting'],
    ['PAUSED', null, 'starting'],
    ['SOMETHING_NEW', null, 'starting'],
    ['EXITED', null, 'failed'],
    ['DEAD', null, 'failed'],
    ['TERMINATED', null, 'gone'],
    ['TERMINATED', RUNTIME, 'gone'],
  ])('%s with runtime %j → %s', (desiredStatus, runtime, kind) => {
    expect(classifyPod({ id: 'p1', desiredStatus, runtime }).kind).toBe(kind);
  });

  it('a pod RunPod does not answer is gone', () => {
    expect(classifyPod(null)).toEqual({ kind: 'gone' });
  });

  it('says which EXITED it was', () => {
    expect(classifyPod({ desiredStatus: 'EXITED', podType: 'INTERRUPTABLE' })).toMatchObject({
      reason: expect.stringContaining('taken back'),
    });
    expect(classifyPod({ desiredStatus: 'EXITED', podType: 'RESERVED' })).toMatchObject({
      reason: expect.stringContaining('stopped'),
    });
  });
});

describe('conditionOf: what the reconciler reads', () => {
  it.each([
    [{ desiredStatus: 'RUNNING', runtime: RUNTIME }, 'running'],
    [{ desiredStatus: 'RUNNING', runtime: null }, 'loading'],
    [{ desiredStatus: 'CREATED' }, 'loading'],
    [{ desiredStatus: 'EXITED', podType: 'INTERRUPTABLE' }, 'outbid'],
    [{ desiredStatus: 'EXITED', env: ['TENDER_INTERRUPTIBLE=1'] }, 'outbid'],
    [{ desiredStatus: 'EXITED', podType: 'RESERVED' }, 'stopped'],
    [{ desiredStatus: 'PAUSED' }, 'stopped'],
    [{ desiredStatus: 'DEAD' }, 'exited'],
  ])('%j → %s', (pod, state) => {
    expect(conditionOf(pod)?.state).toBe(state);
  });

  it('has no condition for a terminated pod, and carries the bid of an interruptible one', () => {
    expect(conditionOf({ desiredStatus: 'TERMINATED' })).toBeUndefined();
    expect(
      conditionOf({ desiredStatus: 'EXITED', podType: 'INTERRUPTABLE', costPerHr: 0.44 }),
    ).toEqual({
      state: 'outbid',
      bid: 0.44,
    });
    expect(conditionOf({ desiredStatus: 'RUNNING', costPerHr: 0.69, runtime: RUNTIME })).toEqual({
      state: 'running',
    });
  });
});

describe('podReport: a starting pod’s status line', () => {
  it.each([
    [
      'pulling, RunPod saying how far',
      {
        desiredStatus: 'RUNNING',
        runtime: null,
        lastStatusChange: 'Pulling image: 6.8 GB / 15 GB',
      },
      { line: 'RUNNING, no runtime yet: Pulling image: 6.8 GB / 15 GB', isImagePull: true },
    ],
    [
      'pulling, nothing said',
      { desiredStatus: 'RUNNING', runtime: null },
      {
        line: 'RUNNING, no runtime yet: pulling the image or starting the container',
        isImagePull: true,
      },
    ],
    [
      'created',
      { desiredStatus: 'CREATED', lastStatusChange: 'Rented by User' },
      { line: 'CREATED: Rented by User', isImagePull: false },
    ],
    ['not listed yet', null, { line: 'not listed yet', isImagePull: false }],
  ])('%s', (_n, pod, want) => {
    expect(podReport(pod)).toEqual(want);
  });
});
