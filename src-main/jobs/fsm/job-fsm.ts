import type { JobPhase, JobStatus } from '../../contract';

/** Facts observed about one job attempt on one node. */
export type JobEvent =
  | { type: 'JobSubmitted' }
  | { type: 'NodeReady' }
  | { type: 'WorkspaceMaterialized' }
  | { type: 'SetupExited'; code: number | null; signal: string | null }
  /** `stoppedBy`: the node's agent stopped the run on a rule of the job's policy (the GPU
   *  idle rule): a stop by policy, failed with those words, never recovered. */
  | { type: 'JobExited'; code: number | null; signal: string | null; stoppedBy?: string }
  | { type: 'OutputsCollected'; missing: string[] }
  | { type: 'OutputsFailed'; error: string }
  | { type: 'NodeFault'; reason: string }
  /** The node is proved gone (the provider no longer lists it, or says it exited), or
   *  `preempted`: the provider says it took an interruptible node back (outbid). */
  | { type: 'NodeLost'; reason: string; cause?: 'node_lost' | 'preempted' }
  /** Without `reason`: the user cancelled (status `cancelled`). With it: a stop by policy,
   *  e.g. "budget reached ($25.00 of $25.00)" (status `failed`). */
  | { type: 'OperatorStop'; reason?: string }
  | { type: 'TeardownComplete'; error: string | null }
  /** A distributed run's gang restarts (another rank was lost and is recovered): this
   *  healthy rank stops its run and starts it again with the gang, as a new attempt. */
  | { type: 'GangRestart'; reason: string };

export type JobCommand =
  | 'ProvisionNode'
  | 'MaterializeWorkspace'
  | 'RunSetup'
  | 'RunJob'
  | 'CancelJob'
  | 'CollectOutputs'
  | 'TeardownNode'
  /** A recovery: the old lease destroyed and confirmed, a new one booted (a new attempt). */
  | 'RecoverNode';

export interface JobState {
  status: JobStatus;
  phase: JobPhase;
  exitCode: number | null;
  reason: string | null;
  hasWorkspace: boolean;
  hasSetup: boolean;
  /** 0 for the first attempt; each recovery counts up (TENDER_ATTEMPT). */
  attempt: number;
  /** `[recovery]`: how many recoveries, and on what (`node_lost`, `exit_code:137`). */
  maxRestarts: number;
  recoverOn: string[];
  /** Why the current attempt began (null for the first). */
  recoveredFrom?: string | null;
}

export interface JobStep {
  state: JobState;
  commands: JobCommand[];
  ignored?: string;
}

export function initialJobState(opts: {
  hasWorkspace: boolean;
  hasSetup: boolean;
  maxRestarts?: number;
  recoverOn?: string[];
}): JobState {
  return {
    status: 'pending',
    phase: 'provisioning',
    exitCode: null,
    reason: null,
    attempt: 0,
    maxRestarts: 0,
    recoverOn: [],
    ...opts,
  };
}

/** A new attempt when the recovery rules cover `cause` and restarts are left. */
function recovered(s: JobState, cause: string, why: string): JobStep | null {
  if (!s.recoverOn.includes(cause) || s.attempt >= s.maxRestarts) return null;
  return {
    state: {
      ...s,
      status: 'running',
      phase: 'provisioning',
      exitCode: null,
      reason: null,
      recoveredFrom: why,
      attempt: s.attempt + 1,
    },
    commands: ['RecoverNode'],
  };
}

/** The event → command table of one job attempt. Pure. Collection always comes before teardown,
 *  so "collect best effort, then tear down" is two steps here rather than one. */
export function jobTransition(s: JobState, e: JobEvent): JobStep {
  const ignore = (): JobStep => ({ state: s, commands: [], ignored: `${e.type} in ${s.phase}` });
  if (s.phase === 'done') return ignore();

  switch (e.type) {
    case 'JobSubmitted':
      return s.status === 'pending' && s.phase === 'provisioning'
        ? { state: s, commands: ['ProvisionNode'] }
        : ignore();

    case 'NodeReady':
      if (s.phase !== 'provisioning') return ignore();
      return afterWorkspace({ ...s, status: 'running' }, s.hasWorkspace);

    case 'WorkspaceMaterialized':
      return s.phase === 'materializing' ? afterWorkspace(s, false) : ignore();

    case 'SetupExited':
      if (s.phase !== 'setup') return ignore();
      if (e.code === 0) return { state: { ...s, phase: 'run' }, commands: ['RunJob'] };
      return collect({ ...s, status: 'failed', exitCode: e.code, reason: `setup ${exitText(e)}` });

    case 'JobExited':
      if (s.phase !== 'run') return ignore();
      if (e.code === 0) return collect({ ...s, exitCode: 0 });
      if (e.stoppedBy !== undefined)
        return collect({ ...s, status: 'failed', exitCode: e.code, reason: e.stoppedBy });
      return (
        (e.code !== null && recovered(s, `exit_code:${e.code}`, `run ${exitText(e)}`)) ||
        collect({ ...s, status: 'failed', exitCode: e.code, reason: `run ${exitText(e)}` })
      );

    case 'OutputsCollected':
    case 'OutputsFailed': {
      if (s.phase !== 'collecting') return ignore();
      const note =
        e.type === 'OutputsFailed'
          ? `outputs not collected: ${e.error}`
          : e.missing.length > 0
            ? `outputs missing: ${e.missing.join(', ')}`
            : null;
      // The exit code decides whether the job failed; outputs it did not write are a note.
      // Outputs that could not be brought back (the stream refused, the transfer broken)
      // fail a job that exited 0: the run did not deliver its results (exit 3, not 0).
      const isLost = e.type === 'OutputsFailed' && s.status === 'running';
      const status = isLost ? 'failed' : s.status === 'running' ? 'completed' : s.status;
      const reason = s.reason ?? (status !== s.status || status === 'completed' ? note : null);
      return { state: { ...s, status, reason, phase: 'tearing_down' }, commands: ['TeardownNode'] };
    }

    case 'NodeFault':
    case 'NodeLost': {
      if (s.phase === 'tearing_down') return ignore();
      // Only a node proved gone is recovered (a lost link alone never is), and only while
      // the job had not ended.
      const again =
        e.type === 'NodeLost' && s.phase !== 'collecting'
          ? recovered(
              s,
              e.cause ?? 'node_lost',
              e.cause === 'preempted'
                ? `the node was preempted (${e.reason})`
                : `the node was lost (${e.reason})`,
            )
          : null;
      if (again) return again;
      return {
        state: { ...s, status: 'failed', reason: s.reason ?? e.reason, phase: 'tearing_down' },
        commands: ['TeardownNode'],
      };
    }

    case 'OperatorStop': {
      const stopped: JobStatus = e.reason === undefined ? 'cancelled' : 'failed';
      switch (s.phase) {
        case 'provisioning':
          return {
            state: {
              ...s,
              status: stopped,
              reason: e.reason ?? 'cancelled',
              phase: 'tearing_down',
            },
            commands: ['TeardownNode'],
          };
        case 'materializing':
        case 'setup':
        case 'run':
          return {
            state: {
              ...s,
              status: stopped,
              reason: e.reason ?? 'cancelled',
              phase: 'collecting',
            },
            commands: ['CancelJob', 'CollectOutputs'],
          };
        case 'collecting':
          return {
            state: {
              ...s,
              // A job that had already failed stays failed; one that exited well is stopped.
              status: s.status === 'failed' ? 'failed' : stopped,
              reason: s.reason ?? e.reason ?? 'cancelled',
            },
            commands: [],
          };
        default:
          return ignore();
      }
    }

    case 'GangRestart':
      if (s.phase !== 'run') return ignore();
      return {
        state: {
          ...s,
          exitCode: null,
          reason: null,
          recoveredFrom: e.reason,
          attempt: s.attempt + 1,
        },
        commands: ['CancelJob', 'RunJob'],
      };

    case 'TeardownComplete':
      if (s.phase !== 'tearing_down') return ignore();
      return {
        state: {
          ...s,
          phase: 'done',
          reason: s.reason ?? (e.error ? `teardown: ${e.error}` : null),
        },
        commands: [],
      };
  }
}

function afterWorkspace(s: JobState, materialize: boolean): JobStep {
  if (materialize)
    return { state: { ...s, phase: 'materializing' }, commands: ['MaterializeWorkspace'] };
  if (s.hasSetup) return { state: { ...s, phase: 'setup' }, commands: ['RunSetup'] };
  return { state: { ...s, phase: 'run' }, commands: ['RunJob'] };
}

function collect(s: JobState): JobStep {
  return { state: { ...s, phase: 'collecting' }, commands: ['CollectOutputs'] };
}

function exitText(e: { code: number | null; signal: string | null }): string {
  return e.code !== null ? `exited ${e.code}` : `killed by ${e.signal ?? 'a signal'}`;
}
