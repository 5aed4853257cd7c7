// The transition table: every stage × every message, its next stage and effects, and a
// check that the table leaves no cell out.
import { describe, expect, it } from 'vitest';
import type { NodeStage } from '../contract';
import { NodeStage as NodeStageSchema } from '../contract';
import { NODE_MSG_TYPES, type NodeMsgType } from './messages';
import { transition } from './transition';
import { messages, NOW, recordIn } from './transition.test-util';

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
  // A warm node whose lease a later run claimed: nothing, not even Destroy, acts on it here.
  released: {
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
    Replace: I,
    LeaseLost: I,
    ...query('released'),
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
