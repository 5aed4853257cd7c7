import { describe, expect, it } from 'vitest';
import type { NodeStage } from '../contract';
import { NodeStage as NodeStageSchema } from '../contract';
import { NODE_MSG_TYPES, type NodeMsg, type NodeMsgType } from './messages';
import { address, bareRecordIn, endpoint, lease, T0 } from './node-fixtures';
import type { NodeRecord } from '../ledger/node-record';
import { destroyRetryDelay, transition } from './transition';

const NOW = 2_000_000;

const messages: Record<NodeMsgType, NodeMsg> = {
  Start: { type: 'Start' },
  LeaseCreated: { type: 'LeaseCreated', lease, endpoint: null },
  LeaseFailed: { type: 'LeaseFailed', reason: 'no offers' },
  LeaseFound: { type: 'LeaseFound', lease, endpoint: null },
  LeaseNotFound: { type: 'LeaseNotFound' },
  EndpointKnown: { type: 'EndpointKnown', endpoint },
  EndpointFailed: { type: 'EndpointFailed', reason: 'exited' },
  BootstrapStarted: { type: 'BootstrapStarted', sessionId: 7 },
  BootstrapObserved: { type: 'BootstrapObserved', stage: 'ssh_ready', lastStdoutSeq: 3 },
  BootstrapFailed: { type: 'BootstrapFailed', stage: 'join_timeout', reason: 'no hello in 60 s' },
  BootstrapClosed: { type: 'BootstrapClosed' },
  AgentJoined: {
    type: 'AgentJoined',
    agent: { agentId: 'ag-1', version: '0.1.0', capabilities: { os: 'linux' }, address },
  },
  HandoffComplete: { type: 'HandoffComplete' },
  Destroy: { type: 'Destroy', reason: 'run ended' },
  Replace: { type: 'Replace', label: 'tender-i-r-node-0-a1', excludeMachine: 'm-42' },
  LeaseLost: { type: 'LeaseLost', reason: 'the provider no longer lists it' },
  DestroyConfirmed: { type: 'DestroyConfirmed' },
  DestroyFailed: { type: 'DestroyFailed', error: 'HTTP 500' },
  GetStatus: { type: 'GetStatus' },
  GetRecord: { type: 'GetRecord' },
};

function recordIn(stage: NodeStage, extra: Partial<NodeRecord> = {}): NodeRecord {
  const base = bareRecordIn('new');
  const hasLease = !['new', 'lease_requested'].includes(stage);
  const hasEndpoint = hasLease && stage !== 'lease_created';
  const hasAgent = ['agent_joined', 'handed_off', 'dormant'].includes(stage);
  return {
    ...base,
    stage,
    lease: hasLease ? lease : null,
    connection: hasEndpoint ? endpoint : null,
    agent: hasAgent
      ? {
          agentId: 'ag-1',
          version: '0.1.0',
          joinedAt: T0,
          handedOffAt: null,
          capabilities: {},
          address,
        }
      : null,
    ready: stage === 'handed_off' || stage === 'dormant',
    ...extra,
  };
}

/** Expected outcome: the stage after the message and the effect types, or "ignored". */
type Outcome = [NodeStage, string[]] | 'ignored';
const I = 'ignored' as const;
const query = (stage: NodeStage): Record<'GetStatus' | 'GetRecord', Outcome> => ({
  GetStatus: [stage, ['Reply']],
  GetRecord: [stage, ['Reply']],
});
const destroyWithLease: Outcome = ['destroying', ['CancelWork', 'DestroyLease']];
const failed: Outcome = ['failed', ['CancelWork']];

// Every stage × every message. A missing cell fails the completeness test below.
const table: Record<NodeStage, Record<NodeMsgType, Outcome>> = {
  new: {
    Start: ['lease_requested', ['CreateLease']],
    LeaseCreated: I,
    LeaseFailed: I,
    LeaseFound: I,
    LeaseNotFound: I,
    EndpointKnown: I,
    EndpointFailed: I,
    BootstrapStarted: I,
    BootstrapObserved: I,
    BootstrapFailed: I,
    BootstrapClosed: I,
    AgentJoined: I,
    HandoffComplete: I,
    Destroy: ['destroyed', []],
    DestroyConfirmed: I,
    DestroyFailed: I,
    Replace: I,
    LeaseLost: I,
    ...query('new'),
  },
  lease_requested: {
    Start: I,
    LeaseCreated: ['lease_created', ['LookupEndpoint']],
    LeaseFailed: failed,
    LeaseFound: ['lease_created', ['LookupEndpoint']],
    LeaseNotFound: failed,
    EndpointKnown: I,
    EndpointFailed: I,
    BootstrapStarted: I,
    BootstrapObserved: I,
    BootstrapFailed: I,
    BootstrapClosed: I,
    AgentJoined: I,
    HandoffComplete: I,
    Destroy: ['lease_requested', ['FindLease']],
    DestroyConfirmed: I,
    DestroyFailed: I,
    Replace: I,
    LeaseLost: I,
    ...query('lease_requested'),
  },
  lease_created: {
    Start: I,
    LeaseCreated: I,
    LeaseFailed: I,
    LeaseFound: I,
    LeaseNotFound: I,
    EndpointKnown: ['endpoint_known', ['StartBootstrap']],
    EndpointFailed: failed,
    BootstrapStarted: I,
    BootstrapObserved: I,
    BootstrapFailed: I,
    BootstrapClosed: I,
    AgentJoined: I,
    HandoffComplete: I,
    Destroy: destroyWithLease,
    DestroyConfirmed: I,
    DestroyFailed: I,
    Replace: I,
    LeaseLost: ['failed', ['CancelWork']],
    ...query('lease_created'),
  },
  endpoint_known: {
    Start: I,
    LeaseCreated: I,
    LeaseFailed: I,
    LeaseFound: I,
    LeaseNotFound: I,
    EndpointKnown: I,
    EndpointFailed: I,
    BootstrapStarted: ['bootstrap_running', []],
    BootstrapObserved: I,
    BootstrapFailed: failed,
    BootstrapClosed: I,
    AgentJoined: I,
    HandoffComplete: I,
    Destroy: destroyWithLease,
    DestroyConfirmed: I,
    DestroyFailed: I,
    Replace: I,
    LeaseLost: ['failed', ['CancelWork']],
    ...query('endpoint_known'),
  },
  bootstrap_running: {
    Start: I,
    LeaseCreated: I,
    LeaseFailed: I,
    LeaseFound: I,
    LeaseNotFound: I,
    EndpointKnown: I,
    EndpointFailed: I,
    BootstrapStarted: ['bootstrap_running', []],
    BootstrapObserved: ['bootstrap_running', []],
    BootstrapFailed: failed,
    BootstrapClosed: failed,
    AgentJoined: ['agent_joined', ['NotifyConvergence']],
    HandoffComplete: I,
    Destroy: destroyWithLease,
    DestroyConfirmed: I,
    DestroyFailed: I,
    Replace: I,
    LeaseLost: ['failed', ['CancelWork']],
    ...query('bootstrap_running'),
  },
  agent_joined: {
    Start: I,
    LeaseCreated: I,
    LeaseFailed: I,
    LeaseFound: I,
    LeaseNotFound: I,
    EndpointKnown: I,
    EndpointFailed: I,
    BootstrapStarted: ['bootstrap_running', []],
    BootstrapObserved: ['agent_joined', []],
    BootstrapFailed: failed,
    BootstrapClosed: ['handed_off', ['CompleteHandoff']],
    AgentJoined: I,
    HandoffComplete: I,
    Destroy: destroyWithLease,
    DestroyConfirmed: I,
    DestroyFailed: I,
    Replace: I,
    LeaseLost: ['failed', ['CancelWork']],
    ...query('agent_joined'),
  },
  handed_off: {
    Start: I,
    LeaseCreated: I,
    LeaseFailed: I,
    LeaseFound: I,
    LeaseNotFound: I,
    EndpointKnown: I,
    EndpointFailed: I,
    BootstrapStarted: I,
    BootstrapObserved: I,
    BootstrapFailed: I,
    BootstrapClosed: I,
    AgentJoined: I,
    HandoffComplete: ['dormant', []],
    Destroy: destroyWithLease,
    DestroyConfirmed: I,
    DestroyFailed: I,
    Replace: I,
    LeaseLost: ['failed', ['CancelWork']],
    ...query('handed_off'),
  },
  dormant: {
    Start: I,
    LeaseCreated: I,
    LeaseFailed: I,
    LeaseFound: I,
    LeaseNotFound: I,
    EndpointKnown: I,
    EndpointFailed: I,
    BootstrapStarted: I,
    BootstrapObserved: I,
    BootstrapFailed: I,
    BootstrapClosed: I,
    AgentJoined: I,
    HandoffComplete: I,
    Destroy: destroyWithLease,
    DestroyConfirmed: I,
    DestroyFailed: I,
    Replace: I,
    LeaseLost: ['failed', ['CancelWork']],
    ...query('dormant'),
  },
  failed: {
    Start: I,
    LeaseCreated: I,
    LeaseFailed: I,
    LeaseFound: I,
    LeaseNotFound: I,
    EndpointKnown: I,
    EndpointFailed: I,
    BootstrapStarted: I,
    BootstrapObserved: I,
    BootstrapFailed: I,
    BootstrapClosed: I,
    AgentJoined: I,
    HandoffComplete: I,
    Destroy: destroyWithLease, // the fixture's failed node holds a lease: it still bills
    DestroyConfirmed: I,
    DestroyFailed: I,
    Replace: I,
    LeaseLost: ['failed', ['CancelWork']],
    ...query('failed'),
  },
  destroying: {
    Start: I,
    LeaseCreated: I,
    LeaseFailed: I,
    LeaseFound: I,
    LeaseNotFound: I,
    EndpointKnown: I,
    EndpointFailed: I,
    BootstrapStarted: I,
    BootstrapObserved: I,
    BootstrapFailed: I,
    BootstrapClosed: I,
    AgentJoined: I,
    HandoffComplete: I,
    Destroy: I,
    DestroyConfirmed: ['destroyed', []],
    DestroyFailed: ['destroying', ['DestroyLease']],
    Replace: I,
    LeaseLost: ['destroyed', []],
    ...query('destroying'),
  },
  destroyed: {
    Start: I,
    LeaseCreated: I,
    LeaseFailed: I,
    LeaseFound: I,
    LeaseNotFound: I,
    EndpointKnown: I,
    EndpointFailed: I,
    BootstrapStarted: I,
    BootstrapObserved: I,
    BootstrapFailed: I,
    BootstrapClosed: I,
    AgentJoined: I,
    HandoffComplete: I,
    Destroy: I,
    DestroyConfirmed: I,
    DestroyFailed: I,
    Replace: ['new', []],
    LeaseLost: I,
    ...query('destroyed'),
  },
};

describe('NodeManager transition: every stage × every message', () => {
  it('the table covers every stage and every message', () => {
    expect(Object.keys(table).sort()).toEqual([...NodeStageSchema.options].sort());
    for (const stage of NodeStageSchema.options) {
      expect(Object.keys(table[stage]).sort(), stage).toEqual([...NODE_MSG_TYPES].sort());
    }
  });

  for (const stage of NodeStageSchema.options) {
    for (const msgType of NODE_MSG_TYPES) {
      const expected = table[stage][msgType];
      it(`${stage} × ${msgType} → ${expected === I ? 'ignored' : expected[0]}`, () => {
        const rec = recordIn(stage);
        const out = transition(rec, messages[msgType], NOW);
        if (expected === I) {
          expect(out.ignored).toBeTruthy();
          expect(out.record).toBe(rec);
          expect(out.effects).toEqual([]);
          return;
        }
        expect(out.ignored).toBeUndefined();
        expect(out.record.stage).toBe(expected[0]);
        expect(out.effects.map((e) => e.type)).toEqual(expected[1]);
        if (out.record.stage !== rec.stage) expect(out.record.stageSince).toBe(NOW);
        else expect(out.record.stageSince).toBe(rec.stageSince);
        // ready only after the bootstrap session closed; never in a terminal or destroying stage
        if (['failed', 'destroying', 'destroyed'].includes(out.record.stage)) {
          expect(out.record.ready).toBe(false);
        }
      });
    }
  }
});

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

describe('LeaseLost explained by the node\'s own dead-man switch', () => {
  it('a live node whose lease vanished by its own switch is destroyed (not lost), billed until it fired', () => {
    const rec = recordIn('dormant');
    const out = transition(
      rec,
      { type: 'LeaseLost', reason: 'destroyed by its own dead-man switch: app unreachable for 30 min', selfDestroyedAt: 5 },
      100,
    );
    expect(out.record.stage).toBe('destroyed');
    expect(out.record.leaseLost).toBe(false);
    expect(out.record.destroyedAt).toBe(5);
    expect(out.record.destroyReason).toMatch(/dead-man switch/);
    expect(out.effects.map((e) => e.type)).toEqual(['CancelWork']);
  });
});
