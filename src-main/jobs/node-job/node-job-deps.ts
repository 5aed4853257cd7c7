import type { LeaseParams, TeardownRecord } from '../../../src-agent/wire/protocol';
import type { GpuIdleRule, JobSpec } from '../../contract';
import type { Datastream } from '../../datastream/datastream';
import type { Ledger } from '../../ledger/ledger';
import type { NodeManager } from '../../nodes/node-manager';
import type { NodeRecord } from '../../ledger/node-record';
import type { NodeEndpoint } from '../../providers/provider';
import type { NodeShell } from '../../transport/node-shell';
import type { AgentAddress } from '../../nodes/node-layout';
import type { PushPlan } from '../workspace/push';
import type { JobState } from '../fsm/job-fsm';
import type { PulledOutputs } from '../outputs/pull';
import type { NodeManifestMemory } from '../workspace/node-manifest-memory';
import type { SweepWiring } from '../sweep/cell-server';
import type { Gang } from '../distributed/gang';
import type { AgentLinkDeps } from '../../nodes/agent-link';
import type { JobLink } from './job-link';

// What a NodeJob (node-job.ts) is given: the node's manager, the stores, and the policy.

/** A node whose bootstrap has its runtime and agent bundle in place: lease `label` at
 *  `endpoint`, the agent reachable as `address` once started. */
export interface PreparedNode {
  label: string;
  endpoint: NodeEndpoint;
  address: AgentAddress;
  /** A handle on the bootstrap's own connection, already up (no handshake), which the
   *  taker closes; null where it cannot be shared. */
  share(): NodeShell | null;
  /** Set before the bootstrap's checks have answered: the command that starts the push's
   *  node side on a guess the node checks itself (nodes/speculative-serve.ts). */
  serveCommand?: string;
}

export interface NodeJobDeps {
  ledger: Ledger;
  datastream: Datastream;
  manager: NodeManager;
  job: JobSpec;
  /** The job's id on the node's agent (`configure`) and in its receipt: `<run>.<node>`. A
   *  sweep's cells each get their own (`<run>.<cell>`); not the ledger's job spec id. */
  agentJobId: string;
  keep: boolean;
  /** Rebuild the job's persistent environment even when one is ready (`--fresh-setup`). */
  freshSetup: boolean;
  outputsDir: string;
  /** Where file hashes are cached between pushes (hash-cache.ts). */
  hashCacheFile: string;
  /** Where each endpoint's measured link rate is kept (link-rates.ts); absent: in memory. */
  linkRatesFile?: string;
  /** What was last pushed to each node (node-manifest-memory.ts). */
  manifestMemory: NodeManifestMemory;
  connect(endpoint: NodeEndpoint): (signal: AbortSignal) => Promise<NodeShell>;
  /** A connection for short commands and the link's control channel, shared with other
   *  such users (transport/shell-pool.ts `light`); absent: `connect`. */
  connectLight?(endpoint: NodeEndpoint): (signal: AbortSignal) => Promise<NodeShell>;
  /** Hears each time a bootstrap of this node has put the runtime and the agent in place
   *  (before the daemon starts); returns the function that stops listening. Absent: the
   *  push waits for the agent to join. */
  onAgentPrepared?(listener: (p: PreparedNode) => void): () => void;
  /** Opens an attempt's agent link; absent: an AgentLink over `connect` (tests give a
   *  double of the agent here). */
  openLink?(deps: AgentLinkDeps): JobLink;
  workspacePlan(): Promise<PushPlan | null>;
  isLeaseGone(rec: NodeRecord): Promise<boolean>;
  /** A shell that still reaches a gone node's files, where one does (a Slurm allocation's
   *  folder on the cluster's shared filesystem, through the login node): its outputs are
   *  collected from there, best effort. Absent or null: none. */
  afterEndShell?(rec: NodeRecord): Promise<NodeShell | null>;
  /** What ended a gone lease, when its provider can say (Provider.whyGone). */
  whyLeaseGone?(
    rec: NodeRecord,
  ): Promise<{ words: string; cause: 'node_lost' | 'preempted' | 'ended' } | null>;
  /** What the provider last said of an interruptible lease it took back (`outbid`,
   *  `stopped`, `exited`), as the reconciler recorded it; null: nothing. */
  leaseInterruption(rec: NodeRecord): string | null;
  onChange(): void;
  crashPoint(name: string): void;
  now(): number;
  cancelGraceMs: number;
  /** Stop waiting for a destroy after this many failed attempts; the lease stays listed. */
  teardownMaxAttempts: number;
  /** Leases a node may go through when boots fail (1: no replacement). */
  maxBootAttempts: number;
  /** The lease label of a node's `attempt`-th lease. */
  nextLabel(attempt: number): string;
  /** A lease failed to boot and was destroyed: remember its host, journal what it cost. */
  recordBootFailure(rec: NodeRecord, reason: string): void;
  /** A lease's machine went away under a running job (its host or container died): remember
   *  the host, so a recovery rents elsewhere. */
  recordLostHost(rec: NodeRecord, reason: string): void;
  /** The job ended on this node: its receipt is written (receipt-writer.ts) from what the
   *  job knew and what the run knows (the workspace it was given, when it started, what it
   *  cost). */
  recordReceipt?(facts: { state: JobState; pulled: PulledOutputs | null }): void;
  /** The node's dead-man switch: the agent destroys the node itself when the app stops
   *  renewing it (unreachable past the grace, budget, idle). null: none is armed. */
  deadMan: DeadManWiring | null;
  /** The run's GPU idle rule (`[policy] gpu_idle`), given to the agent in `configure`: the
   *  node enforces it. Absent: none. */
  gpuIdle?: GpuIdleRule;
  /** A sweep: the node's run phase serves the run's queued cells (sweep/cell-server.ts)
   *  instead of running the job once. */
  sweep?: SweepWiring;
  /** A distributed run: this node is rank `rank` of the gang (distributed/gang.ts). */
  gang?: { gang: Gang; rank: number };
  /** The job's declared port forwards (`ports`, `remote_ports`): opened once its run phase
   *  starts, closed at its teardown (services/forwards). */
  forwards?: {
    open(
      nodeId: string,
      ports: readonly (number | string)[],
      remotePorts: readonly string[],
    ): Promise<unknown>;
    close(nodeId: string): Promise<void>;
  };
}

/** What a NodeJob knows that a renewal depends on. */
export interface RenewalState {
  inUse: boolean;
  collected: boolean;
  jobEndedAt: number | null;
}

export interface DeadManWiring {
  everyMs: number;
  /** The `lease` request for now; null when the run has no policy. */
  params(state: RenewalState): LeaseParams | null;
  /** The agent acknowledged a renewal. */
  onRenewed(params: LeaseParams, state: RenewalState): void;
  /** The node said its switch fired; returns the words the ledger keeps. */
  onSelfTeardown(record: TeardownRecord): string;
  /** A lease found gone: the words for it if the node's own switch explains it. */
  explainLoss(): string | null;
  /** Someone is using the node through the app (an open terminal). */
  isNodeInUse(): boolean;
}
