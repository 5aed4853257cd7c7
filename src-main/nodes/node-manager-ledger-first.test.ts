// The NodeManager commits each step to the ledger before it runs the step's effects, from
// Start to a confirmed destroy, and is ready only after the bootstrap session closed.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpRigs, rig, upAndRunning } from './node-manager.test-util';

afterEach(cleanUpRigs);

describe('NodeManager: the ledger comes first', () => {
  it('commits each step before running its effects, from Start to a confirmed destroy', async () => {
    const r = rig();
    expect((await upAndRunning(r)).stage).toBe('dormant');
    r.manager.send({ type: 'Destroy', reason: 'run ended' });
    const gone = await r.manager.waitFor((rec) => rec.stage === 'destroyed');

    expect(r.provider.calls).toEqual([
      'createLease in lease_requested',
      'bootstrap in endpoint_known',
      'destroyLease in destroying',
    ]);
    expect(r.journal()).toEqual([
      'Start',
      'LeaseCreated',
      'BootstrapStarted',
      'BootstrapObserved',
      'AgentJoined',
      'BootstrapClosed',
      'HandoffComplete',
      'Destroy',
      'DestroyConfirmed',
    ]);
    expect(r.points).toEqual([
      'before-create-call',
      'after-create-call',
      'before-destroy-call',
      'after-destroy-call',
    ]);
    expect(r.ledger.getNode(gone.id)).toEqual(gone);
    expect(gone.destroyReason).toBe('run ended');
  });

  it('is ready only once the bootstrap session has closed after the join', async () => {
    const r = rig();
    r.manager.send({ type: 'Start' });
    const joined = await r.manager.waitFor((rec) => rec.stage === 'agent_joined');
    expect(joined.ready).toBe(false);
    expect((await r.manager.waitFor((rec) => rec.stage === 'dormant')).ready).toBe(true);
  });
});
