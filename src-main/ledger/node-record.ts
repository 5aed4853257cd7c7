import type { BootstrapStage, NodeStage } from '../contract';
import type { HostKeyInput } from '../../src-agent/wire/host-key';
import type { LeaseFacts, NodeEndpoint } from '../providers/provider';

/** What a node should become, fixed when the run is planned. */
export interface NodeDesired {
  provider: string;
  /** Provider-specific shape (image, gpu, disk…); `{}` for local. */
  shape: Record<string, unknown>;
  /** Boot verification commands, run by the bootstrap session. */
  verify: string[];
  /** The placement key (`hk1_…`, jobs/host-key.ts) the agent advertises. */
  hostKey: string;
  /** The declaration the key was computed from (jobs/host/host-declaration.ts); absent in
   *  records written before keys were computed from it. */
  host?: HostKeyInput;
  /** The job's capability constraints (contract/constraint.ts), checked against what the
   *  agent probed when it joins; absent: none. */
  constraints?: string[];
  /** Ports the node's peers must reach (a distributed run's master port). */
  openPorts?: number[];
  /** The run's max duration, for a provider's own hard limit (Slurm's `--time`). */
  maxDurationMs?: number;
  /** The pool's `pull_stall`: an image pull with no progress for this long is given up;
   *  absent: the default (nodes/pull-watch.ts). */
  pullStallMs?: number;
}

export interface BootstrapFacts {
  sessionId: number;
  lastStage: BootstrapStage;
  lastStdoutSeq: number | null;
  lastStderrSeq: number | null;
  lastObservedAt: number;
}

export interface AgentFacts {
  agentId: string;
  version: string;
  joinedAt: number;
  handedOffAt: number | null;
  capabilities: Record<string, string | number>;
  /** The host key the agent advertised at join (it recomputes it from its declaration). */
  hostKey?: string | null;
  /** How to reach the agent again over a fresh shell (runtime, bundle, node folder). */
  address: AgentAddress;
}

/** Everything the ledger keeps about one node (its `record_json`), rewritten at each FSM step.
 *  Full logs never live here; the datastream has them. */
export interface NodeRecord {
  id: string; // `${runId}/${logicalId}`
  runId: string;
  logicalId: string; // e.g. "node-0"
  groupId: string;
  role: string;
  /** Provider label, fixed before any provider call: `tender-<install>-<run>-<node>`. */
  label: string;
  desired: NodeDesired;
  stage: NodeStage;
  stageSince: number;
  ready: boolean;
  lease: LeaseFacts | null;
  connection: NodeEndpoint | null;
  bootstrap: BootstrapFacts | null;
  agent: AgentFacts | null;
  failedReason: string | null;
  destroyedAt: number | null;
  /** Destroy arrived while the create call was in flight: destroy whatever it returns. */
  destroyRequested: boolean;
  destroyReason: string | null;
  destroyAttempts: number;
  lastError: string | null;
  /** 0 for the first lease; a replacement after a boot failure counts up. */
  attempt: number;
  /** The provider no longer lists the lease and Tender did not destroy it. */
  leaseLost: boolean;
  /** This node took over a warm node's lease (a claim): which, when, and the agent log seq
   *  it had reached (this run's log starts after it). */
  claimedFrom?: WarmClaim;
  /** Stage `released`: the node of the later run that holds this node's lease now. */
  releasedTo?: string;
  /** A recovered attempt: its new agent's log seqs are stored after the attempt before's
   *  (the datastream's last agent seq when it was replaced). */
  agentSeqOffset?: number;
}

export interface WarmClaim {
  nodeId: string;
  runId: string;
  at: number;
  agentSeq: number;
}

export function newNodeRecord(init: {
  runId: string;
  logicalId: string;
  groupId: string;
  role: string;
  label: string;
  desired: NodeDesired;
  now: number;
}): NodeRecord {
  return {
    id: `${init.runId}/${init.logicalId}`,
    runId: init.runId,
    logicalId: init.logicalId,
    groupId: init.groupId,
    role: init.role,
    label: init.label,
    desired: init.desired,
    stage: 'new',
    stageSince: init.now,
    attempt: 0,
    ...NO_LEASE_YET,
  };
}

/** Everything a node learns from a lease, as before it has one: a new node, and a node
 *  starting over on a replacement lease (`Replace`). */
export const NO_LEASE_YET = {
  ready: false,
  lease: null,
  connection: null,
  bootstrap: null,
  agent: null,
  failedReason: null,
  destroyedAt: null,
  destroyRequested: false,
  destroyReason: null,
  destroyAttempts: 0,
  lastError: null,
  leaseLost: false,
} as const satisfies Partial<NodeRecord>;

/** How to reach a joined agent again: recorded at join, used by every later link. */
export interface AgentAddress {
  runtime: string;
  bundleWord: string;
  dirWord: string;
  /** The daemon's socket as the agent reported it (absolute, on the node): reached
   *  directly when the shell can, else through `attach`. */
  socket?: string;
}
