// The control socket: every op with its params and result, the request and response
// frames, and the events the agent pushes.
// Part of the agent's protocol (docs/agent-protocol.md), re-exported by protocol.ts; types
// and constants only.
import type { AgentLogRecord } from './protocol-log';
import type { Phase, PhaseState } from './protocol-phase';
import type { HelloResult, StatusResult } from './protocol-agent';
import type { ConfigureParams } from './protocol-job';
import type { HostSetupAppend, HostSetupSecrets, HostSetupStatus } from './protocol-host-setup';
import type { LeaseParams, LeaseResult, TeardownRecord } from './protocol-dead-man';
import type { OutputsGlance, OutputsSpec } from './protocol-outputs';

/** Every op: its request fields (besides `id` and `op`) and its result. */
export interface Ops {
  hello: { params: object; result: HelloResult };
  /** `phases`: the phase states once configured (absent from agents before it said them). */
  configure: { params: ConfigureParams; result: { phases?: StatusResult['phases'] } };
  start: {
    params: { phase: Phase; command: string };
    /** `cached`: setup was skipped, its environment ready (`pid` 0). */
    result: { pid: number; alreadyStarted: boolean; cached?: boolean };
  };
  status: { params: object; result: StatusResult };
  subscribe: { params: { fromSeq: number }; result: { lastSeq: number } };
  cancel: { params: { phase?: Phase; graceMs?: number }; result: Record<string, never> };
  shutdown: { params: { graceMs?: number }; result: Record<string, never> };
  ping: { params: object; result: Record<string, never> };
  lease: { params: LeaseParams; result: LeaseResult };
  /** `position`: how many unfinished entries are ahead of it (0: it runs now or next). */
  'host_setup.append': { params: HostSetupAppend; result: { id: number; position: number } };
  'host_setup.status': { params: object; result: HostSetupStatus };
  /** Values for the secrets entries name (`waiting`: entries still missing one). */
  'host_setup.secrets': { params: HostSetupSecrets; result: { waiting: number } };
  /** A distributed run's pre-flight (gang-probe.ts): rank 0 listens on the master port… */
  'probe.listen': { params: { port: number; ttlMs?: number }; result: Record<string, never> };
  /** …each other rank connects to it; `ok` only when it read the probe's banner… */
  'probe.connect': {
    params: { host: string; port: number; timeoutMs?: number };
    result: { ok: boolean; ms?: number; error?: string };
  };
  /** …and rank 0 stops listening before the job starts (the port is the job's). */
  'probe.close': { params: { port: number }; result: Record<string, never> };
  /** What a pull of these outputs would find (a final collection that would bring nothing
   *  is skipped: no `pack-outputs` process started on the node). */
  'outputs.glance': { params: OutputsSpec; result: OutputsGlance };
}
export type OpName = keyof Ops;
export const OP_NAMES: readonly OpName[] = [
  'hello',
  'configure',
  'start',
  'status',
  'subscribe',
  'cancel',
  'shutdown',
  'ping',
  'lease',
  'host_setup.append',
  'host_setup.status',
  'host_setup.secrets',
  'probe.listen',
  'probe.connect',
  'probe.close',
  'outputs.glance',
];

export type RequestId = number | string;

export type Request<K extends OpName = OpName> = {
  [P in K]: { id: RequestId; op: P } & Ops[P]['params'];
}[K];

export type ErrorCode =
  | 'bad_request'
  | 'unknown_op'
  | 'not_configured'
  /** configure of a new job or attempt while a phase of the previous one runs */
  | 'busy'
  /** start of setup while another job builds the same environment on this node */
  | 'env_locked'
  | 'shutting_down'
  /** start while the last workspace push cannot be completed (delta-apply.ts) */
  | 'workspace_incomplete'
  /** start while the host-setup FIFO still has pending or running entries */
  | 'host_setup_running'
  /** probe.listen on a port this node cannot listen on (in use, not allowed) */
  | 'port_unavailable'
  | 'internal';

export interface ErrorBody {
  code: ErrorCode;
  message: string;
}

export type Response<K extends OpName = OpName> =
  | { id: RequestId; ok: true; result: Ops[K]['result'] }
  /** `id` is null when the request could not be parsed far enough to read it. */
  | { id: RequestId | null; ok: false; error: ErrorBody };

export type AgentEvent =
  | { ev: 'log'; records: AgentLogRecord[] }
  | { ev: 'phase'; state: PhaseState }
  /** Sent to every connected client, subscribed or not, each time the record's state changes. */
  | { ev: 'teardown'; record: TeardownRecord };

/** Anything the socket sends: a response (has `id`) or an event (has `ev`). */
export type ServerMessage = Response | AgentEvent;
