import type { BootstrapStage } from '../contract';
import type { DestroyHandle, LeaseFacts, NodeEndpoint } from '../providers/provider';
import type { AgentFacts } from '../ledger/node-record';

/** Inbound messages: past-tense facts, plus the orders Start and Destroy.
 *  `BootstrapStarted` exists so the ledger sees the bootstrap actually begin,
 *  `DestroyConfirmed`/`DestroyFailed` so a destroy counts only once the provider confirms
 *  it, and `LeaseFound`/`LeaseNotFound` answer a label lookup. */
export type NodeMsg =
  | { type: 'Start' }
  | { type: 'LeaseCreated'; lease: LeaseFacts; endpoint: NodeEndpoint | null }
  | { type: 'LeaseFailed'; reason: string }
  | { type: 'LeaseFound'; lease: LeaseFacts; endpoint: NodeEndpoint | null }
  | { type: 'LeaseNotFound' }
  | { type: 'EndpointKnown'; endpoint: NodeEndpoint }
  /** `notTheHost`: another host would fail the same (a registry refused the image's
   *  login): failed as `image: …`, which is no boot failure to replace. */
  | { type: 'EndpointFailed'; reason: string; notTheHost?: boolean }
  | { type: 'BootstrapStarted'; sessionId: number }
  | {
      type: 'BootstrapObserved';
      stage: BootstrapStage;
      lastStdoutSeq?: number;
      lastStderrSeq?: number;
    }
  | { type: 'BootstrapFailed'; stage: BootstrapStage; reason: string }
  | { type: 'BootstrapClosed' }
  | { type: 'AgentJoined'; agent: Omit<AgentFacts, 'joinedAt' | 'handedOffAt'> }
  | { type: 'HandoffComplete' }
  | { type: 'Destroy'; reason: string }
  | { type: 'DestroyConfirmed' }
  | { type: 'DestroyFailed'; error: string }
  | { type: 'GetStatus' }
  | { type: 'GetRecord' }
  /** A new lease for this node after a boot failure, once the failed one is destroyed. */
  | {
      type: 'Replace';
      label: string;
      excludeMachine: string | null;
      /** A recovery: where the new agent's log seqs continue (AgentLogSink). */
      agentSeqOffset?: number;
    }
  /** Reconciliation: the provider no longer lists the lease, and Tender did not destroy it. */
  /** `selfDestroyedAt`: the node's own dead-man switch explains the loss; the
   *  lease is then destroyed (not lost) from that moment, with `reason`. */
  | { type: 'LeaseLost'; reason: string; selfDestroyedAt?: number };

export type NodeMsgType = NodeMsg['type'];

/** Outbound effects: imperative orders the runner performs. Each is
 *  idempotent, because a crash can fall between the commit and the effect. */
export type NodeEffect =
  /** Creates the lease. With `lookupFirst` (a resume: a create may already have happened
   *  before a crash) it looks the label up first and creates only if nothing carries it. */
  | { type: 'CreateLease'; lookupFirst: boolean }
  | { type: 'FindLease' } // looks the label up; never creates
  | { type: 'LookupEndpoint'; lease: LeaseFacts }
  | { type: 'StartBootstrap'; endpoint: NodeEndpoint; lease: LeaseFacts }
  | { type: 'NotifyConvergence'; agentId: string }
  | { type: 'CompleteHandoff' }
  | { type: 'CancelWork' } // abort lookup / bootstrap in flight
  | { type: 'DestroyLease'; handle: DestroyHandle; delayMs: number }
  | { type: 'Reply'; kind: 'status' | 'record' };

export const NODE_MSG_TYPES: readonly NodeMsgType[] = [
  'Start',
  'LeaseCreated',
  'LeaseFailed',
  'LeaseFound',
  'LeaseNotFound',
  'EndpointKnown',
  'EndpointFailed',
  'BootstrapStarted',
  'BootstrapObserved',
  'BootstrapFailed',
  'BootstrapClosed',
  'AgentJoined',
  'HandoffComplete',
  'Destroy',
  'DestroyConfirmed',
  'DestroyFailed',
  'GetStatus',
  'GetRecord',
  'Replace',
  'LeaseLost',
];
