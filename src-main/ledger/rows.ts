import type {
  AfterJob,
  JobStatus,
  JobPhase,
  LeaseInterruption,
  LeaseState,
  LeasePolicy,
} from '../contract';
import type { RateChange } from '../contract/billing';

export interface RunRow {
  id: string;
  jobId: string;
  jobName: string;
  /** Where the job came from (a job file's path, `<composer>`), for display and rerun. */
  source: string | null;
  provider: string;
  count: number;
  pool: Record<string, unknown>;
  keep: boolean;
  status: JobStatus;
  detached: boolean;
  driverPid: number | null;
  createdAt: number;
  endedAt: number | null;
  failedReason: string | null;
  outputsDir: string;
  /** null for runs made before policies existed. */
  policy: LeasePolicy | null;
  /** Who started it: `cli`, `app`, `mcp:<client>` (contract/run-origin.ts); null: unknown. */
  origin: string | null;
}

export interface AttemptRow {
  nodeId: string;
  runId: string;
  attempt: number;
  status: JobStatus;
  phase: JobPhase;
  exitCode: number | null;
  reason: string | null;
  updatedAt: number;
}

export interface LeaseRow {
  label: string;
  leaseId: string | null;
  provider: string;
  runId: string | null;
  nodeId: string | null;
  state: LeaseState;
  destroyHandle: Record<string, string> | null;
  pricePerHour: number | null;
  requestedAt: number;
  createdAt: number | null;
  destroyedAt: number | null;
  destroyAttempts: number;
  lastError: string | null;
  reason: string | null;
  deadMan: DeadManFacts | null;
  /** Not running, as its provider last listed it (null: running, or not known otherwise). */
  interruption: LeaseInterruption | null;
  /** An interruptible lease's bid, $/h for the machine (null: on-demand, or not listed yet). */
  bid: number | null;
  /** The lowest bid that would run it, as last listed. */
  minBid: number | null;
  /** Changes of its rate since creation, in time order (contract/billing.ts `RateChange`). */
  rates: RateChange[];
  /** Read per run (leasesOfRun): the share of a warm lease this run held; else null. */
  servedFrom: number | null;
  servedTo: number | null;
}

/** What a lease's dead-man switch was last told, in app wall-clock time, so that a later
 *  process can tell why a node that vanished destroyed itself. */
export interface DeadManFacts {
  graceMs: number;
  /** First renewal the agent acknowledged. */
  armedAt: number;
  /** Last renewal the agent acknowledged: the node destroys itself graceMs after it. */
  renewedAt: number;
  maxDeadlineAt: number | null;
  budgetDeadlineAt: number | null;
  idleTimeoutMs: number | null;
  afterJob: AfterJob;
  /** When the job ended on this node (the idle clock of keep_warm starts here). */
  jobEndedAt: number | null;
  /** The last renewal said a job was running (or the node otherwise in use): its switch
   *  then has no unreachable deadline until the job ends, which the app may never see. */
  inUse?: boolean;
  /** What the node said when it began tearing itself down (agent's words). */
  selfTeardown: { cause: string; reason: string; at: number; state: string } | null;
}

export interface JournalEvent {
  seq: number;
  ts: number;
  runId: string | null;
  nodeId: string | null;
  kind: string;
  data: Record<string, unknown>;
}

export interface HostKeyPin {
  scope: string;
  endpoint: string;
  keyType: string;
  fingerprint: string;
  pinnedAt: number;
  /** Base64 of the public key blob; null for pins made before it was kept. */
  publicKey?: string | null;
}
