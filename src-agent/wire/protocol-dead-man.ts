// The dead-man switch (the `lease` op): how it is armed and renewed, why it fires, and how
// the node destroys itself.
// Part of the agent's protocol (docs/agent-protocol.md), re-exported by protocol.ts; types
// and constants only.

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
 *  within the collect grace. `gpu_idle`: the job's GPU idle rule (`then = "teardown"`). */
export type TeardownCause =
  'unreachable' | 'max_duration' | 'budget' | 'job_done' | 'idle' | 'uncollected' | 'gpu_idle';

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
