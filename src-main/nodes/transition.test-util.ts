// Shared fixtures of the transition tests (transition-*.test.ts): one message of every type,
// and a record in any stage holding what that stage implies. Not part of any bundle.
import type { NodeStage } from '../contract';
import type { NodeMsg, NodeMsgType } from './messages';
import { address, bareRecordIn, endpoint, lease, T0 } from './node-fixtures';
import type { NodeRecord } from '../ledger/node-record';

export const NOW = 2_000_000;

export const messages: Record<NodeMsgType, NodeMsg> = {
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

export function recordIn(stage: NodeStage, extra: Partial<NodeRecord> = {}): NodeRecord {
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
