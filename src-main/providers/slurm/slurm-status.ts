/** The one table from Slurm's job states to what the app needs of a job (its lease):
 *  waiting in the queue, running, or gone — and if gone, why, in words a person reads.
 *
 *  States are Slurm 22.05's (`job_state_string`: base states and the flag states squeue's
 *  `%T` prints instead, such as COMPLETING or REQUEUED); reasons are `%r` / `Reason=`. */

/** Why a job is no longer there. */
export type GoneCause =
  'time_limit' | 'node_fail' | 'preempted' | 'cancelled' | 'completed' | 'failed' | 'unknown';

export type SlurmJobStatus =
  /** In the queue. `blocked`: it will not start unless someone changes something (a hold,
   *  a limit the partition never allows, a dependency that can never be met). */
  | { kind: 'pending'; reason: string; blocked: boolean; words: string; slurm: string }
  /** Holding its nodes: running, or suspended, or ending (COMPLETING: the final state is
   *  not known until it has ended). */
  | { kind: 'running'; words: string; slurm: string }
  | { kind: 'gone'; cause: GoneCause; words: string; slurm: string };

type Row =
  | { kind: 'pending'; words?: string }
  | { kind: 'running'; words: string }
  | { kind: 'gone'; cause: GoneCause; words: string };

/** Keyed by the state as Slurm prints it. */
export const JOB_STATE_TABLE: Readonly<Record<string, Row>> = {
  PENDING: { kind: 'pending' },
  REQUEUED: { kind: 'pending', words: 'put back in the queue by Slurm' },
  REQUEUE_HOLD: { kind: 'pending', words: 'requeued and held' },
  REQUEUE_FED: { kind: 'pending', words: 'requeued by the federation' },
  SPECIAL_EXIT: { kind: 'pending', words: 'requeued and held after a special exit' },
  RESV_DEL_HOLD: { kind: 'pending', words: 'held: its reservation was deleted' },
  CONFIGURING: { kind: 'pending', words: 'its nodes are being booted' },
  POWER_UP_NODE: { kind: 'pending', words: 'its nodes are powering up' },
  RUNNING: { kind: 'running', words: 'running' },
  SUSPENDED: { kind: 'running', words: 'suspended by Slurm (its processes are stopped)' },
  STOPPED: { kind: 'running', words: 'stopped by a signal (its nodes stay allocated)' },
  RESIZING: { kind: 'running', words: 'running (being resized)' },
  SIGNALING: { kind: 'running', words: 'running (being signalled)' },
  STAGE_OUT: { kind: 'running', words: 'staging out its files' },
  UPDATE_DB: { kind: 'running', words: 'running (being recorded)' },
  COMPLETING: { kind: 'running', words: 'ending (COMPLETING)' },
  COMPLETED: { kind: 'gone', cause: 'completed', words: 'finished with exit code 0' },
  CANCELLED: { kind: 'gone', cause: 'cancelled', words: 'was cancelled' },
  FAILED: { kind: 'gone', cause: 'failed', words: 'failed (non-zero exit)' },
  OUT_OF_MEMORY: { kind: 'gone', cause: 'failed', words: 'ran out of memory' },
  LAUNCH_FAILED: { kind: 'gone', cause: 'failed', words: 'could not be launched on its node' },
  TIMEOUT: { kind: 'gone', cause: 'time_limit', words: 'was ended by Slurm at its time limit' },
  DEADLINE: { kind: 'gone', cause: 'time_limit', words: 'was ended by Slurm at its deadline' },
  NODE_FAIL: { kind: 'gone', cause: 'node_fail', words: 'was ended because its node failed' },
  BOOT_FAIL: { kind: 'gone', cause: 'node_fail', words: 'was ended: its node failed to boot' },
  PREEMPTED: { kind: 'gone', cause: 'preempted', words: 'was preempted by a higher-priority job' },
  REVOKED: { kind: 'gone', cause: 'unknown', words: 'was revoked (it runs on another cluster)' },
};

/** Pending reasons in words; `blocked` where the job never starts as it stands. Reasons not
 *  listed keep Slurm's word. Prefix matches for the limit families (`AssocGrp…`, `QOSMax…`). */
const PENDING_REASONS: { test: RegExp; words: string; blocked: boolean }[] = [
  { test: /^None$/, words: 'waiting to be scheduled', blocked: false },
  { test: /^Resources$/, words: 'waiting for free nodes', blocked: false },
  { test: /^Priority$/, words: 'waiting behind jobs of higher priority', blocked: false },
  {
    test: /^BeginTime$/,
    words: 'waiting for its begin time (a requeued job waits about 2 minutes)',
    blocked: false,
  },
  { test: /^Dependency$/, words: 'waiting for the jobs it depends on', blocked: false },
  { test: /^DependencyNeverSatisfied$/, words: 'its dependency can never be met', blocked: true },
  { test: /^JobHeld(User|Admin)$/, words: 'held (scontrol release lets it run)', blocked: true },
  {
    test: /^ReqNodeNotAvail/,
    words: 'the nodes it needs are down, drained or reserved',
    blocked: false,
  },
  { test: /^Partition(Down|Inactive)$/, words: 'its partition is down', blocked: false },
  {
    test: /^Partition(Config|NodeLimit|TimeLimit)$|^BadConstraints$/,
    words: 'its partition can never run it as asked',
    blocked: true,
  },
  {
    test: /^Invalid(Account|QOS)$|account not known/i,
    words: 'its account or QOS is not valid here',
    blocked: true,
  },
  {
    test: /^(Assoc|QOS)(Grp|Max|Min)/,
    words: 'waiting for a limit of its account or QOS',
    blocked: false,
  },
  { test: /^Reservation$/, words: 'waiting for its reservation', blocked: false },
  { test: /^NodeDown$/, words: 'its node went down', blocked: false },
  { test: /^launch failed requeued held$/i, words: 'its launch failed; held', blocked: true },
];

/** What a job's state and reason (squeue or scontrol) mean for the app. A state this table
 *  does not know is `gone` / `unknown` with Slurm's word: the caller should cancel the job
 *  before it forgets it. */
export function jobStatus(state: string, reason: string): SlurmJobStatus {
  const word = state.trim().split(/\s+/)[0]!.toUpperCase();
  const why = reason.trim();
  const slurm = why && why !== 'None' ? `${word} (${why})` : word;
  const row = JOB_STATE_TABLE[word];
  if (!row) return { kind: 'gone', cause: 'unknown', words: `is in Slurm state ${word}`, slurm };
  if (row.kind === 'running') return { kind: 'running', words: row.words, slurm };
  if (row.kind === 'gone') return { kind: 'gone', cause: row.cause, words: row.words, slurm };
  const known = PENDING_REASONS.find((r) => r.test.test(why));
  const reasonWords = known?.words ?? why;
  return {
    kind: 'pending',
    reason: why,
    blocked: known?.blocked ?? false,
    words: row.words ? `${row.words}; ${reasonWords}` : reasonWords,
    slurm,
  };
}

/** A job Slurm no longer lists (it ended more than MinJobAge ago, or never was). */
export function missingJobStatus(): SlurmJobStatus {
  return {
    kind: 'gone',
    cause: 'unknown',
    words: 'is no longer known to Slurm',
    slurm: 'not listed',
  };
}
