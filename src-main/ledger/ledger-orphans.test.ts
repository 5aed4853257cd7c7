// Orphan leases in the ledger: recorded as destroying before anything is done to them,
// settled by the outcome of the destroy, and revived from a lease written off as not_created.
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanUpLedgers,
  commit,
  INSTALL,
  leaseRow,
  RUN,
  seedRun,
  T0,
  tempHome,
  writer,
} from './ledger.test-util';

afterEach(cleanUpLedgers);

describe('orphans', () => {
  const orphan = {
    label: `tender-${INSTALL}-lost-node-0`,
    leaseId: 'local:lost',
    provider: 'local',
    handle: { provider: 'local', leaseId: 'local:lost', contractId: 'lost' },
  };

  it('records an orphan as destroying before anything is done to it, then settles it', () => {
    const home = tempHome();
    const ledger = writer(home);

    ledger.recordOrphan(orphan, T0);

    expect(ledger.liveLeases()).toEqual([
      expect.objectContaining({
        label: orphan.label,
        leaseId: orphan.leaseId,
        state: 'destroying',
        destroyHandle: orphan.handle,
        runId: null,
        nodeId: null,
        requestedAt: T0,
        destroyAttempts: 0,
        reason: expect.stringContaining('orphan'),
      }),
    ]);

    ledger.settleOrphan(orphan.label, { confirmed: false, error: 'HTTP 503' }, T0 + 1);

    expect(leaseRow(ledger, orphan.label)).toMatchObject({
      state: 'destroying',
      destroyAttempts: 1,
      lastError: 'HTTP 503',
      destroyedAt: null,
    });

    ledger.settleOrphan(orphan.label, { confirmed: true, error: null }, T0 + 2);

    expect(leaseRow(ledger, orphan.label)).toMatchObject({
      state: 'destroyed',
      destroyAttempts: 2,
      lastError: null,
      destroyedAt: T0 + 2,
    });
    expect(ledger.liveLeases()).toEqual([]);
    expect(ledger.journal().map((e) => [e.kind, e.data])).toEqual([
      ['orphan.destroying', { label: orphan.label, leaseId: orphan.leaseId }],
      ['orphan.destroy_failed', { label: orphan.label, error: 'HTTP 503' }],
      ['orphan.destroyed', { label: orphan.label, error: null }],
    ]);
  });

  it('turns a lease the ledger wrote off as not_created back into one to destroy', () => {
    const home = tempHome();
    const ledger = writer(home);
    const [start] = seedRun(ledger, 'node-0');
    const req = commit(ledger, start!, { type: 'Start' }, T0 + 1);
    commit(ledger, req, { type: 'LeaseFailed', reason: 'timeout' }, T0 + 2);
    const found = { ...orphan, label: req.label, leaseId: `local:${req.label}` };

    ledger.recordOrphan(found, T0 + 3);

    expect(leaseRow(ledger, req.label)).toMatchObject({
      state: 'destroying',
      leaseId: found.leaseId,
      destroyHandle: found.handle,
      runId: RUN,
    });
  });
});
