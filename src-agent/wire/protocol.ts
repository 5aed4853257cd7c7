// Types of the agent's control protocol and command outputs (docs/agent-protocol.md).
// Runtime-free apart from the version constant: the app imports this file.
import type { PushEncodingName } from './push-encoding';

/** Bumped when a change to this file would break an app built against the previous one. */
export const PROTOCOL_VERSION = 1;

export type Phase = 'setup' | 'run';
export const PHASES: readonly Phase[] = ['setup', 'run'];

/** `host_setup`: an entry of the host-setup FIFO (host-setup.ts); `run_setup`: the job's
 *  run_setup, run at the start of the run phase; `gpu`: a GPU sample (gpu-sample.ts), one
 *  JSON line, never job output; `metrics`: a line the job appended to `$TENDER_METRICS`
 *  (metrics-tailer.ts), data too, never job output. */
export type LogSource = Phase | 'agent' | 'host_setup' | 'run_setup' | 'gpu' | 'metrics';
export type LogStream = 'stdout' | 'stderr' | 'info';

/** One line of `D/logs/log.jsonl`; `seq` is node-wide, from 1, without gaps in normal use.
 *  The app stores each as a contract `LogRecord` on the node's `agent` channel (same seq). */
export interface AgentLogRecord {
  seq: number;
  /** Milliseconds since the epoch, on the node's clock. */
  ts: number;
  src: LogSource;
  stream: LogStream;
  line: string;
}

/** `D/phases/<phase>.json`. */
export interface PhaseState {
  phase: Phase;
  command: string;
  state: 'running' | 'exited';
  pid: number | null;
  startedAt: number;
  exitedAt: number | null;
  /** Exit status; null when killed by a signal or when the outcome is unknown. */
  code: number | null;
  /** e.g. 'SIGKILL' when killed by a signal. */
  signal: string | null;
  cancelled: boolean;
  /** Setup only: skipped, its persistent environment was ready (nothing was spawned). */
  cached?: boolean;
}

/** Flat keys such as `gpu.count` or `gpu.0.model`; numbers are counts or bytes. */
export type Capabilities = Record<string, string | number>;

export interface HelloResult {
  agentId: string;
  version: string;
  protocol: number;
  pid: number;
  startedAt: number;
  hostKey: string | null;
  lastSeq: number;
  capabilities: Capabilities;
  teardown: TeardownRecord | null;
  /** The absolute path of the socket the daemon serves: the app reaches it there directly
   *  (OpenSSH streamlocal) next time, with no `attach` process started on the node. */
  socket?: string;
}

export interface ConfigureParams {
  jobId: string;
  attempt: number;
  env?: Record<string, string>;
  /** Kept in the daemon's memory only; redacted from every log line. */
  secretEnv?: Record<string, string>;
  params?: Record<string, string>;
  /** The job's setup builds a persistent environment (setup-env.ts) keyed by the setup
   *  command and these workspace files; `fresh` rebuilds it even when ready. */
  setupEnv?: SetupEnvRequest;
  /** Run before the run phase's command, every run, in the same environment; a non-zero
   *  exit ends the run phase with that code. */
  runSetup?: string;
  /** A distributed run's rank environment: TENDER_NODE_RANK, MASTER_ADDR… (GANG_ENV_KEY). */
  gang?: Record<string, string>;
}

export interface SetupEnvRequest {
  fingerprint: string[];
  fresh: boolean;
}

export interface StatusResult {
  phases: Partial<Record<Phase, PhaseState>>;
  lastSeq: number;
  hasWorkspace: boolean;
  teardown: TeardownRecord | null;
  /** The node-wide cache folder (`TENDER_CACHE`) and its size; absent from older agents. */
  cache?: CacheInfo;
}

/** `TENDER_CACHE`: shared by every job on the machine, kept between leases. */
export interface CacheInfo {
  path: string;
  /** Sum of the sizes of its files (links not followed), measured at `measuredAt`. */
  bytes: number;
  measuredAt: number;
}

/** `host_setup.append`: one command for the node's host-setup FIFO. */
export interface HostSetupAppend {
  script: string;
  name?: string;
  /** Re-probe the node's capabilities (GPUs) once it has run: a driver install. */
  refreshCapabilities?: boolean;
}

/** One entry of the host-setup FIFO, as `D/host-setup/<id>.json` keeps it. */
export interface HostSetupEntry {
  /** 1, 2, …: its place in the FIFO, in the order entries were added. */
  id: number;
  script: string;
  name?: string;
  refreshCapabilities: boolean;
  /** `declared`: seeded from the host declaration's host_setup (`declIndex` its index
   *  there); `appended`: by `host_setup.append`. */
  origin: 'declared' | 'appended';
  declIndex?: number;
  state: 'pending' | 'running' | 'exited';
  pid: number | null;
  /** Exit status; null when killed by a signal or when the outcome is unknown. */
  code: number | null;
  signal: string | null;
  addedAt: number;
  startedAt: number | null;
  exitedAt: number | null;
  /** Its log section: the seq of its header line and of its exit line (null until then). */
  firstSeq: number | null;
  lastSeq: number | null;
}

export interface HostSetupStatus {
  entries: HostSetupEntry[];
  /** No entry is pending or running: the job's phases may start. */
  drained: boolean;
}

/** How a node destroys itself when its dead-man switch fires. */
export type SelfTeardown =
  /** Vast.ai: DELETE {apiUrl}/api/v0/instances/{CONTAINER_ID}/ with `Authorization: Bearer {CONTAINER_API_KEY}` —
   *  the per-instance key each container has, allowed to act on that instance only. Both are read
   *  from the agent's own environment, else from the first of `envFiles` that has both
   *  (/proc/<pid>/environ format: KEY=VALUE entries each ended by NUL; a leading `~/` means $HOME).
   *  The account API key never reaches a node. */
  | { kind: 'vastai'; apiUrl: string; envFiles: string[] }
  /** RunPod: POST {apiUrl}/graphql `mutation { podTerminate(input: {podId}) }` with
   *  `Authorization: Bearer {RUNPOD_API_KEY}` for `RUNPOD_POD_ID` — the pod-scoped key RunPod
   *  puts in every pod's environment. Both are read as for `vastai` (own environment, else the
   *  first of `envFiles` that has both). The account API key never reaches a node. */
  | { kind: 'runpod'; apiUrl: string; envFiles: string[] }
  /** Providers without a per-instance credential (ssh hosts, local): stop the job, remove the run's
   *  files (workspace and outputs; logs are kept), and end the agent. */
  | { kind: 'remove-files' };

/** `uncollected`: the job ended with nobody attached and no Tender collected its outputs
 *  within the collect grace. */
export type TeardownCause =
  'unreachable' | 'max_duration' | 'budget' | 'job_done' | 'idle' | 'uncollected';

/** Arms or renews the switch. Every `lease` call is a renewal: the switch fires `graceMs` after
 *  the last one. Durations are relative to when the agent receives the call and are measured on
 *  the monotonic clock (a wall-clock jump on the node changes nothing). */
export interface LeaseParams {
  graceMs: number;
  /** Left until the lease's max_duration (null: none). */
  maxDurationMs?: number | null;
  /** Left until the run's budget is spent at its current burn rate (null: none). */
  budgetMs?: number | null;
  afterJob: 'destroy' | 'keep_warm';
  /** Fires after this long with no phase running and the app not using the node (null: none). */
  idleTimeoutMs?: number | null;
  /** With `idleTimeoutMs`: a node whose run phase has kept every GPU below this utilisation
   *  (percent, 0 < x ≤ 100) for `idleTimeoutMs` is idle too, job or not (null: off). */
  idleGpuUtilBelow?: number | null;
  /** After the job ended with its outputs not collected: how long the node waits for a
   *  Tender to collect them (at least graceMs) before its switch fires (null: graceMs). */
  collectGraceMs?: number | null;
  /** The app is using the node (driving its job, an open terminal, a live sync). */
  inUse?: boolean;
  /** The job's outputs were collected: with afterJob 'destroy' the node destroys itself
   *  `min(graceMs, 300_000)` ms later unless the app destroyed it first. */
  collected?: boolean;
  teardown: SelfTeardown;
  /** How often the switch is checked; default min(15 000, max(100, graceMs / 4)). */
  checkMs?: number;
}
export interface LeaseResult {
  /** ms until the earliest deadline as things stand (null: none but the renewal, which never is null). */
  firesInMs: number;
  cause: TeardownCause;
}
/** `D/teardown.json`, also in hello/status results and sent as an event. */
export interface TeardownRecord {
  cause: TeardownCause;
  /** For a person: "app unreachable for 35 min", "budget reached", "max duration 6h reached",
   *  "idle for 20 min after the job", "job finished and outputs collected". */
  reason: string;
  /** Epoch ms when it fired (node clock, for display). */
  at: number;
  /** `outputs_kept`: a node on a machine that does not bill (your own) ended its agent and
   *  left the uncollected outputs in place for the next Tender; or a Vast.ai instance that
   *  stopped itself for them (`stop_requested`) was started again by a Tender.
   *  `stopping_instance` / `stop_requested`: a Vast.ai instance whose outputs nobody
   *  collected asks to be stopped (its disk stays, billed as storage only) rather than
   *  destroyed with them. */
  state:
    | 'stopping_job'
    | 'destroying'
    | 'destroy_requested'
    | 'stopping_instance'
    | 'stop_requested'
    | 'files_removed'
    | 'outputs_kept'
    | 'failed';
  error?: string;
}

/** Every op: its request fields (besides `id` and `op`) and its result. */
export interface Ops {
  hello: { params: object; result: HelloResult };
  configure: { params: ConfigureParams; result: Record<string, never> };
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
  /** A distributed run's pre-flight (gang-probe.ts): rank 0 listens on the master port… */
  'probe.listen': { params: { port: number; ttlMs?: number }; result: Record<string, never> };
  /** …each other rank connects to it; `ok` only when it read the probe's banner… */
  'probe.connect': {
    params: { host: string; port: number; timeoutMs?: number };
    result: { ok: boolean; ms?: number; error?: string };
  };
  /** …and rank 0 stops listening before the job starts (the port is the job's). */
  'probe.close': { params: { port: number }; result: Record<string, never> };
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
  'probe.listen',
  'probe.connect',
  'probe.close',
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

/** `D/agent.json`. */
export interface AgentInfo {
  pid: number;
  agentId: string;
  version: string;
  protocol: number;
  startedAt: number;
  socket: string;
}

/** `D/job.json`: the job configuration without its secrets. */
export interface JobFile {
  jobId: string;
  attempt: number;
  env: Record<string, string>;
  params: Record<string, string>;
  setupEnv?: SetupEnvRequest;
  runSetup?: string;
  /** A distributed run's rank environment (GANG_ENV_KEY names only). */
  gang?: Record<string, string>;
}

/** What a distributed run tells each rank (the app's jobs/distributed/gang-env.ts): the
 *  only variables of the task contract the app sets. */
export const GANG_ENV_KEY =
  /^(TENDER_NODE_RANK|TENDER_NUM_NODES|TENDER_NODE_IPS|TENDER_GPUS_PER_NODE|MASTER_ADDR|MASTER_PORT|SKYPILOT_[A-Z_]+|DSTACK_[A-Z_]+)$/;

// Outputs of the one-shot commands, each printed as one JSON line after the marker.
export interface VersionOutput {
  version: string;
  protocol: number;
}
export interface StartOutput {
  pid: number;
  alreadyRunning: boolean;
}
export interface RecvWorkspaceOutput {
  /** Files received in the stream (a delta: the changed and new ones only). */
  files: number;
  bytes: number;
  /** Entries that are neither files nor folders (symlinks, devices): not extracted. */
  skipped: number;
  /** `delta` when the stream began with `.tender/delta.json`. */
  mode: 'full' | 'delta';
  /** Unchanged files a delta left in place (0 for full). */
  kept: number;
  /** Files of the previous workspace left out of the new one (0 for full). */
  deleted: number;
  /** `manifestDigest()` of the new `D/workspace.manifest.json`. */
  manifest: string;
  /** A sealed push: who extracted it, the node's GNU `tar` or the agent itself. */
  extractor?: 'tar' | 'agent';
}

/** `recv-workspace --unless-manifest` when D holds a workspace it can vouch for: nothing
 *  was read or changed; `manifest` is what `workspace-manifest` would print. */
export interface RecvDeclinedOutput {
  declined: 'has_workspace';
  manifest: WorkspaceManifest;
}

/** A request frame of `serve-workspace`: `recv` is `recv-workspace [--in-place]
 *  [--sealed]`, its tar stream following as frames up to an empty one (`encoding`: the
 *  stream is compressed, push-encoding.ts); `manifest` is `workspace-manifest`; `prepare`
 *  (answer `{}`) checks the workspace ahead of the `recv` that follows. */
export type ServeRequest =
  | { op: 'recv'; inPlace: boolean; sealed?: boolean; encoding?: PushEncodingName }
  | { op: 'manifest' }
  | { op: 'prepare' };

/** `serve-workspace`'s answer to `manifest` (null: what `workspace-manifest` leaves empty). */
export interface ServeManifestAnswer {
  manifest: WorkspaceManifest | null;
}

/** One file of a workspace manifest. `mode` is the permission bits (`0o644` → 420). */
export interface ManifestEntry {
  size: number;
  mode: number;
  sha256: string;
}

/** What `D/workspace` holds (`workspace-manifest` prints it; the app builds its own). */
export interface WorkspaceManifest {
  version: 1;
  /** POSIX paths relative to the workspace. */
  files: Record<string, ManifestEntry>;
  /** Every folder, the root excluded, empty ones included. */
  dirs: string[];
}

/** The first entry of a delta push (`DELTA_ENTRY`); the changed files follow it. */
/** A sealed full push (`recv-workspace --sealed`): the workspace under this folder, then
 *  `SEALED_MANIFEST`, the manifest of what was sent. */
export const SEALED_TREE = 'w';
export const SEALED_MANIFEST = 'manifest.json';

export interface DeltaHeader {
  version: 1;
  /** `manifestDigest()` of the node manifest the app diffed against. */
  base: string;
  /** `manifestDigest()` of the workspace once the delta is applied. */
  target: string;
  /** Paths of the base manifest that the new workspace no longer has. */
  deletions: string[];
  /** The changed and new files, each sent after this entry and checked against its entry. */
  files: Record<string, ManifestEntry>;
  /** Every folder of the new workspace. */
  dirs: string[];
}
export const DELTA_ENTRY = '.tender/delta.json';
export interface CommandError {
  error: { code: string; message: string; path?: string };
}

/** The `--spec` of `pack-outputs`, before base64url. */
export interface OutputsSpec {
  paths: string[];
}

/** What the app holds from its last pull (`pack-outputs --have-stdin`, one JSON object on
 *  stdin): archive path → [size, the node's mtime in ms]. A file that still has both is
 *  not sent again but listed in `kept`. */
export type OutputsHave = Record<string, [number, number]>;

/** The last tar entry of `pack-outputs`: `.tender/manifest.json`. */
export interface OutputsManifest {
  /** Sent in this stream (`mtimeMs`: the node's, for the next pull's `have`). */
  files: { path: string; size: number; sha256: string; mtimeMs?: number }[];
  /** Files of `have` that are unchanged on the node, not sent: the app keeps its copy. */
  kept?: { path: string; size: number; mtimeMs: number }[];
  /** Declared paths that do not exist. */
  missing: string[];
  /** Declared paths refused because they leave the workspace. */
  refused: string[];
}
export const MANIFEST_PATH = '.tender/manifest.json';
export const OUTPUT_DIR_PREFIX = '_output/';
