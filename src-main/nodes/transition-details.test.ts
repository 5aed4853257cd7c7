// What the transition table does not show: purity, the effects' arguments, readiness,
// destroy races and backoff, replacement, lost leases (the node's own dead-man switch
// among them) and failure reasons.
import { describe, expect, it } from 'vitest';
import { hostKey } from '../../src-agent/wire/host-key';
import { NODE_MSG_TYPES } from './messages';
import { endpoint, lease } from './node-fixtures';
import { destroyRetryDelay, transition } from './transition';
import { messages, NOW, recordIn } from './transition.test-util';

describe('NodeManager transition: the details the table does not show', () => {
  it('is pure: the input record is never mutated', () => {
    const rec = recordIn('bootstrap_running');
    const frozen = JSON.stringify(rec);
    for (const t of NODE_MSG_TYPES) transition(rec, messages[t], NOW);
    expect(JSON.stringify(rec)).toBe(frozen);
  });

  it('a fresh start creates without a label lookup: no create can have happened yet', () => {
    const out = transition(recordIn('new'), messages.Start, NOW);
    expect(out.effects).toEqual([{ type: 'CreateLease', lookupFirst: false }]);
  });

  it('a lease with its endpoint goes straight to endpoint_known and starts the bootstrap', () => {
    const out = transition(
      recordIn('lease_requested'),
      { type: 'LeaseCreated', lease, endpoint },
      NOW,
    );
    expect(out.record.stage).toBe('endpoint_known');
    expect(out.record.connection).toEqual(endpoint);
    expect(out.effects).toEqual([{ type: 'StartBootstrap', endpoint, lease }]);
  });

  it('a node of a provider list is declared on the provider that leased it (its host key too)', () => {
    const host = { v: 1, runner: 'agent', provider: 'runpod,vastai' } as const;
    const rec = recordIn('lease_requested');
    const listed = {
      ...rec,
      desired: { ...rec.desired, provider: 'runpod,vastai', host, hostKey: hostKey(host) },
    };
    const vastLease = { ...lease, provider: 'vastai' };
    const out = transition(listed, { type: 'LeaseCreated', lease: vastLease, endpoint }, NOW);
    expect(out.record.desired.host?.provider).toBe('vastai');
    expect(out.record.desired.hostKey).toBe(hostKey({ ...host, provider: 'vastai' }));
    expect(out.record.desired.hostKey).not.toBe(listed.desired.hostKey);
    // One provider: the declaration is what it was.
    const plain = { ...rec, desired: { ...rec.desired, host, hostKey: 'hk1_same' } };
    const kept = transition(plain, { type: 'LeaseCreated', lease: vastLease, endpoint }, NOW);
    expect(kept.record.desired.hostKey).toBe('hk1_same');
  });

  it("a listing adopted the lease before the create answered: the create's facts replace its", () => {
    const listed = { ...lease, pricePerHour: null, metadata: {} };
    const created = { ...lease, pricePerHour: 0.31, metadata: { on_demand: '0.3' } };
    const rec = { ...recordIn('bootstrap_running'), lease: listed };
    const out = transition(rec, { type: 'LeaseCreated', lease: created, endpoint }, NOW);
    expect(out.ignored).toBeUndefined();
    expect(out.record).toEqual({ ...rec, lease: created });
    expect(out.effects).toEqual([]);
    // The same facts again, or another lease: nothing to take.
    expect(
      transition(out.record, { type: 'LeaseCreated', lease: created, endpoint }, NOW).ignored,
    ).toBeDefined();
    const other = { ...created, leaseId: 'local:other' };
    expect(
      transition(rec, { type: 'LeaseCreated', lease: other, endpoint }, NOW).ignored,
    ).toBeDefined();
  });

  it('becomes ready only when the bootstrap session has closed after the join', () => {
    let rec = recordIn('bootstrap_running');
    rec = transition(rec, messages.AgentJoined, NOW).record;
    expect(rec.ready).toBe(false);
    expect(rec.agent?.agentId).toBe('ag-1');
    rec = transition(rec, messages.BootstrapClosed, NOW + 1).record;
    expect(rec.stage).toBe('handed_off');
    expect(rec.ready).toBe(true);
    expect(rec.agent?.handedOffAt).toBe(NOW + 1);
    rec = transition(rec, messages.HandoffComplete, NOW + 2).record;
    expect(rec).toMatchObject({ stage: 'dormant', ready: true });
  });

  it('destroy while the create call is in flight destroys whatever the create returns', () => {
    let rec = transition(recordIn('lease_requested'), messages.Destroy, NOW).record;
    expect(rec).toMatchObject({ stage: 'lease_requested', destroyRequested: true });
    const out = transition(rec, { type: 'LeaseCreated', lease, endpoint }, NOW + 1);
    expect(out.record.stage).toBe('destroying');
    expect(out.effects).toContainEqual({
      type: 'DestroyLease',
      handle: lease.destroyHandle,
      delayMs: 0,
    });
    expect(out.effects.some((e) => e.type === 'StartBootstrap')).toBe(false);
    rec = transition(
      transition(recordIn('lease_requested'), messages.Destroy, NOW).record,
      messages.LeaseNotFound,
      NOW,
    ).record;
    expect(rec.stage).toBe('destroyed');
  });

  it('a failed destroy keeps the node in destroying and retries with growing, capped backoff', () => {
    let rec = recordIn('destroying');
    const delays: number[] = [];
    for (let i = 0; i < 12; i++) {
      const out = transition(rec, { type: 'DestroyFailed', error: `HTTP 500 #${i}` }, NOW);
      rec = out.record;
      const eff = out.effects[0];
      if (eff?.type !== 'DestroyLease') throw new Error('expected a DestroyLease retry');
      delays.push(eff.delayMs);
    }
    expect(rec).toMatchObject({
      stage: 'destroying',
      destroyAttempts: 12,
      lastError: 'HTTP 500 #11',
    });
    expect(delays.slice(0, 4)).toEqual([2_000, 4_000, 8_000, 16_000]);
    expect(Math.max(...delays)).toBe(destroyRetryDelay(100));
  });

  it('a failed node without a lease is destroyed at once; the reason is kept', () => {
    const out = transition(recordIn('failed', { lease: null }), messages.Destroy, NOW);
    expect(out.record).toMatchObject({
      stage: 'destroyed',
      destroyedAt: NOW,
      destroyReason: 'run ended',
    });
  });

  it('a replacement starts over on a new label, excluding the host that failed', () => {
    const gone = recordIn('destroyed', {
      lease,
      attempt: 0,
      failedReason: 'bootstrap join_timeout: x',
    });
    const out = transition(gone, messages.Replace, NOW);
    expect(out.record).toMatchObject({
      stage: 'new',
      label: 'tender-i-r-node-0-a1',
      attempt: 1,
      lease: null,
      failedReason: null,
      desired: { shape: { excludeMachines: ['m-42'] } },
    });
    const again = transition(
      { ...out.record, stage: 'destroyed' },
      { type: 'Replace', label: 'x-a2', excludeMachine: 'm-7' },
      NOW,
    );
    expect(again.record.desired.shape.excludeMachines).toEqual(['m-42', 'm-7']);
  });

  it('a lost lease fails the node and is projected as lost, once', () => {
    const out = transition(recordIn('dormant'), messages.LeaseLost, NOW);
    expect(out.record).toMatchObject({
      stage: 'failed',
      leaseLost: true,
      ready: false,
      failedReason: 'lease lost: the provider no longer lists it',
    });
    expect(transition(out.record, messages.LeaseLost, NOW).ignored).toBeTruthy();
  });

  it('failure reasons name the stage they came from', () => {
    const out = transition(recordIn('bootstrap_running'), messages.BootstrapFailed, NOW);
    expect(out.record.failedReason).toBe('bootstrap join_timeout: no hello in 60 s');
    expect(out.record.bootstrap?.lastStage).toBe('join_timeout');
  });
});

describe("LeaseLost explained by the node's own dead-man switch", () => {
  it('a live node whose lease vanished by its own switch is destroyed (not lost), billed until it fired', () => {
    const rec = recordIn('dormant');
    const out = transition(
      rec,
      {
        type: 'LeaseLost',
        reason: 'destroyed by its own dead-man switch: app unreachable for 30 min',
        selfDestroyedAt: 5,
      },
      100,
    );
    expect(out.record.stage).toBe('destroyed');
    expect(out.record.leaseLost).toBe(false);
    expect(out.record.destroyedAt).toBe(5);
    expect(out.record.destroyReason).toMatch(/dead-man switch/);
    expect(out.effects.map((e) => e.type)).toEqual(['CancelWork']);
  });
});

describe('EndpointFailed that is not the host’s (a refused registry login)', () => {
  it('fails the node as `image: …` (no boot failure to replace); other failures stay `endpoint: …`', () => {
    const rec = recordIn('lease_created');
    const refused = transition(
      rec,
      { type: 'EndpointFailed', reason: 'ghcr.io refused the login for lab-bot', notTheHost: true },
      NOW,
    );
    expect(refused.record.failedReason).toBe('image: ghcr.io refused the login for lab-bot');
    const other = transition(rec, { type: 'EndpointFailed', reason: 'exited' }, NOW);
    expect(other.record.failedReason).toBe('endpoint: exited');
  });
});
