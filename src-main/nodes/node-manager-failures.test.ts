// The NodeManager feeds each failed effect back as the message that says so: refused or
// crashed creates, endpoints that never come, failed bootstraps, unknown create outcomes
// and destroys that fail.
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../providers/provider';
import { BootstrapError } from './bootstrap-errors';
import { lease } from './node-fixtures';
import type { NodeManagerDeps } from './node-manager';
import {
  baseTiming,
  cleanUpRigs,
  minuteClock,
  rig,
  type Rig,
  upAndRunning,
} from './node-manager.test-util';

afterEach(cleanUpRigs);

describe('NodeManager: a failed effect comes back as the message that says so', () => {
  it.each<[string, (r: Rig) => Partial<NodeManagerDeps> | void, string]>([
    [
      'a create the provider refuses',
      (r) => (r.provider.create = () => Promise.reject(new ProviderError('no offers left'))),
      'lease: no offers left',
    ],
    [
      'a crash point that throws before the create call',
      () => ({
        crashPoint: (name) => {
          if (name === 'before-create-call') throw new Error('crashed before create');
        },
      }),
      'lease: crashed before create',
    ],
    [
      'an endpoint that can never become usable',
      (r) => {
        r.provider.create = (req) =>
          Promise.resolve({ lease: { ...lease, label: req.label }, endpoint: null });
        r.provider.endpointOf = () => Promise.reject(new ProviderError('exited', { fatal: true }));
      },
      'endpoint: exited',
    ],
    [
      'an endpoint that never comes within the deadline',
      (r) => {
        r.provider.create = (req) =>
          Promise.resolve({ lease: { ...lease, label: req.label }, endpoint: null });
        r.provider.endpointOf = () => Promise.resolve(null);
        return {
          now: minuteClock(), // each look is a minute later
          timing: { ...baseTiming, endpointDeadlineMs: 3 * 60_000 },
        };
      },
      'endpoint: no SSH endpoint within 3 min',
    ],
  ])('%s', async (_name, arrange, reason) => {
    const r = rig({ arrange });
    const rec = await upAndRunning(r);
    expect(rec).toMatchObject({ stage: 'failed', failedReason: reason, ready: false });
    expect(r.ledger.getNode(rec.id)?.failedReason).toBe(reason);
  });

  it('a failed bootstrap names its stage, and is logged', async () => {
    const r = rig({ bootstrapFailure: new BootstrapError('boot_check_failed', 'no Node.js') });
    const rec = await upAndRunning(r);
    expect(rec).toMatchObject({
      stage: 'failed',
      failedReason: 'bootstrap boot_check_failed: no Node.js',
    });
    expect(r.logs).toContain('stderr: bootstrap failed at boot_check_failed: no Node.js');
  });

  it('a create whose outcome is unknown is looked up by label, never created twice', async () => {
    const r = rig();
    r.provider.create = (req) => {
      r.provider.listed.set(lease.leaseId, { ...lease, label: req.label });
      return Promise.reject(new ProviderError('timeout', { outcomeUnknown: true }));
    };
    const rec = await upAndRunning(r);
    expect(rec.stage).toBe('dormant');
    expect(rec.lease?.leaseId).toBe(lease.leaseId);
    expect(r.provider.calls.filter((c) => c.startsWith('createLease'))).toHaveLength(1);
    expect(r.journal().slice(0, 2)).toEqual(['Start', 'LeaseFound']);
  });

  it.each<[string, (r: Rig) => Partial<NodeManagerDeps> | void, string]>([
    [
      'a destroy call that fails',
      (r) => void (r.provider.destroyFailures = 1),
      'HTTP 500 from the fake',
    ],
    [
      'a crash point that throws after the destroy call',
      () => ({
        crashPoint: (name) => {
          if (name === 'after-destroy-call') throw new Error('crashed after destroy');
        },
      }),
      'crashed after destroy',
    ],
    [
      'a lease still listed past the confirm deadline',
      (r) => {
        r.provider.isDestroyHonoured = false;
        return {
          now: minuteClock(),
          timing: { ...baseTiming, destroyConfirmDeadlineMs: 3 * 60_000 },
        };
      },
      'the provider still lists the lease after the destroy call',
    ],
  ])('%s: DestroyFailed, and the lease stays destroying', async (_name, arrange, error) => {
    const r = rig({ arrange });
    await upAndRunning(r);
    r.manager.send({ type: 'Destroy', reason: 'run ended' });
    const rec = await r.manager.waitFor((x) => x.destroyAttempts === 1);
    r.manager.stop(); // the retry is the backoff test's business
    expect(rec).toMatchObject({ stage: 'destroying', lastError: error });
    expect(r.journal().slice(-2)).toEqual(['Destroy', 'DestroyFailed']);
  });
});
