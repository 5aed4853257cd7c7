// The NodeManager's one mailbox: messages in the order sent, waitFor on the records they
// produce, and stop, after which nothing more is committed or done.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { endpoint, lease } from './node-fixtures';
import { cleanUpRigs, rig, upAndRunning } from './node-manager.test-util';

afterEach(cleanUpRigs);

describe('NodeManager: one mailbox, in order', () => {
  it('a message sent while one is processed waits its turn, and runs after its effects began', async () => {
    const seen: string[] = [];
    const r = rig({
      onChange: (rec, m) => {
        if (rec.stage !== 'lease_requested' || rec.destroyRequested) return;
        m.send({ type: 'Destroy', reason: 'operator' });
        // Not processed inside the step that is being committed.
        seen.push(`after send: destroyRequested ${m.record.destroyRequested}`);
      },
    });
    r.manager.send({ type: 'Start' });
    await r.manager.settled();
    seen.push(`settled: destroyRequested ${r.manager.record.destroyRequested}`);
    const rec = await r.manager.waitFor((x) => x.stage === 'destroyed');

    expect(seen).toEqual(['after send: destroyRequested false', 'settled: destroyRequested true']);
    // The create had begun before Destroy was processed: the lease it returns is destroyed,
    // and no look-up races the create still in flight.
    expect(r.provider.calls).toEqual([
      'createLease in lease_requested',
      'destroyLease in destroying',
    ]);
    expect(r.journal()).toEqual(['Start', 'Destroy', 'LeaseCreated', 'DestroyConfirmed']);
    expect(rec.destroyReason).toBe('operator');
  });

  it('messages are processed in the order sent, ignored ones committing nothing', async () => {
    const r = rig();
    r.manager.send({ type: 'GetStatus' });
    r.manager.send({ type: 'Destroy', reason: 'first' });
    r.manager.send({ type: 'Destroy', reason: 'second' });
    r.manager.send({ type: 'Start' });
    await r.manager.settled();
    expect(r.manager.record).toMatchObject({ stage: 'destroyed', destroyReason: 'first' });
    expect(r.journal()).toEqual(['Destroy']);
    expect(r.provider.calls).toEqual([]);
    expect(r.changes).toEqual(['destroyed']);
  });
});

describe('NodeManager: waitFor', () => {
  it('resolves at once with the current record when it already matches', async () => {
    const r = rig();
    const now = r.manager.record;
    await expect(r.manager.waitFor((x) => x.stage === 'new')).resolves.toBe(now);
  });

  it('resolves with the first record that matches, not a later one', async () => {
    const r = rig();
    const first = r.manager.waitFor((x) => x.stage === 'endpoint_known');
    const never = vi.fn();
    void r.manager.waitFor((x) => x.stage === 'failed').then(never);
    await upAndRunning(r);
    const rec = await first;
    expect(rec.stage).toBe('endpoint_known');
    expect(rec.connection).toEqual(endpoint);
    expect(r.manager.record.stage).toBe('dormant');
    await r.manager.settled();
    expect(never).not.toHaveBeenCalled();
  });
});

describe('NodeManager: stop', () => {
  it('stops acting: later messages commit nothing, and work in flight is aborted', async () => {
    const r = rig();
    r.provider.create = (req) =>
      Promise.resolve({ lease: { ...lease, label: req.label }, endpoint: null });
    r.provider.endpointOf = () => new Promise(() => {}); // a look that never answers
    r.manager.send({ type: 'Start' });
    await r.manager.waitFor((x) => x.stage === 'lease_created');
    expect(r.provider.lookupSignals).toHaveLength(1);
    const before = r.journal();

    r.manager.stop();
    r.manager.send({ type: 'Destroy', reason: 'too late' });
    await r.manager.settled();

    expect(r.provider.lookupSignals[0]!.aborted).toBe(true);
    expect(r.manager.record.stage).toBe('lease_created');
    expect(r.journal()).toEqual(before);
    expect(r.provider.calls).not.toContain('destroyLease in destroying');
  });
});
