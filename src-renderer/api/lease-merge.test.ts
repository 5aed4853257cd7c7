import { describe, expect, it } from 'vitest';
import { leaseView } from '../../src-main/contract/lease-view.test-util';
import { mergeLease } from './lease-merge';

const WARM = { hostKey: 'hk1_a', idleEndsAt: 1_000 };
const known = leaseView({ servedRuns: ['r-aaaaaa', 'r-bbbbbb'], warm: WARM, runId: 'r-bbbbbb' });

describe('mergeLease', () => {
  it('keeps the served runs and the warm facts an event does not carry', () => {
    const next = mergeLease(known, leaseView({ runId: 'r-bbbbbb', accruedUsd: 2 }));
    expect(next).toMatchObject({ accruedUsd: 2, servedRuns: known.servedRuns, warm: WARM });
  });

  it('drops warm once the lease stops billing or another run holds it', () => {
    expect(
      mergeLease(known, leaseView({ runId: 'r-bbbbbb', state: 'destroying' })).warm,
    ).toBeNull();
    expect(mergeLease(known, leaseView({ runId: 'r-cccccc' })).warm).toBeNull();
  });

  it('takes what the event says when it says it, and a first sighting as it comes', () => {
    const fresh = leaseView({ runId: 'r-bbbbbb', servedRuns: ['r-x'], warm: null });
    expect(mergeLease(known, fresh)).toEqual(fresh);
    const first = leaseView({});
    expect(mergeLease(undefined, first)).toBe(first);
  });
});
