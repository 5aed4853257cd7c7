import { describe, expect, it } from 'vitest';
import { type GoneCause, JOB_STATE_TABLE, jobStatus, missingJobStatus } from './slurm-status';

type Expected =
  { kind: 'pending'; blocked?: boolean } | { kind: 'running' } | { kind: 'gone'; cause: GoneCause };

/** Every state Slurm 22.05 prints, with the reason the test cluster gave where it showed
 *  one (squeue %T / %r, scontrol JobState / Reason). */
const STATES: [state: string, reason: string, expected: Expected][] = [
  ['PENDING', 'Resources', { kind: 'pending', blocked: false }],
  ['PENDING', 'Priority', { kind: 'pending', blocked: false }],
  ['PENDING', 'BeginTime', { kind: 'pending', blocked: false }],
  ['PENDING', 'None', { kind: 'pending', blocked: false }],
  ['PENDING', 'PartitionConfig', { kind: 'pending', blocked: true }],
  ['PENDING', 'JobHeldUser', { kind: 'pending', blocked: true }],
  ['PENDING', 'QOSMaxJobsPerUserLimit', { kind: 'pending', blocked: false }],
  [
    'PENDING',
    "Job's account not known, so it can't use this partition (gpu allows gputeam)",
    { kind: 'pending', blocked: true },
  ],
  ['REQUEUED', 'None', { kind: 'pending' }],
  ['REQUEUE_HOLD', 'JobHeldAdmin', { kind: 'pending', blocked: true }],
  ['REQUEUE_FED', 'None', { kind: 'pending' }],
  ['SPECIAL_EXIT', 'JobHeldUser', { kind: 'pending', blocked: true }],
  ['RESV_DEL_HOLD', 'None', { kind: 'pending' }],
  ['CONFIGURING', 'None', { kind: 'pending' }],
  ['POWER_UP_NODE', 'None', { kind: 'pending' }],
  ['RUNNING', 'None', { kind: 'running' }],
  ['SUSPENDED', 'None', { kind: 'running' }],
  ['STOPPED', 'None', { kind: 'running' }],
  ['RESIZING', 'None', { kind: 'running' }],
  ['SIGNALING', 'None', { kind: 'running' }],
  ['STAGE_OUT', 'None', { kind: 'running' }],
  ['UPDATE_DB', 'None', { kind: 'running' }],
  ['COMPLETING', 'None', { kind: 'running' }],
  ['COMPLETED', 'None', { kind: 'gone', cause: 'completed' }],
  ['CANCELLED', 'None', { kind: 'gone', cause: 'cancelled' }],
  ['CANCELLED', 'Resources', { kind: 'gone', cause: 'cancelled' }],
  ['FAILED', 'NonZeroExitCode', { kind: 'gone', cause: 'failed' }],
  ['OUT_OF_MEMORY', 'OutOfMemory', { kind: 'gone', cause: 'failed' }],
  ['LAUNCH_FAILED', 'None', { kind: 'gone', cause: 'failed' }],
  ['TIMEOUT', 'TimeLimit', { kind: 'gone', cause: 'time_limit' }],
  ['DEADLINE', 'DeadLine', { kind: 'gone', cause: 'time_limit' }],
  ['NODE_FAIL', 'NodeDown', { kind: 'gone', cause: 'node_fail' }],
  ['BOOT_FAIL', 'None', { kind: 'gone', cause: 'node_fail' }],
  ['PREEMPTED', 'None', { kind: 'gone', cause: 'preempted' }],
  ['REVOKED', 'None', { kind: 'gone', cause: 'unknown' }],
  ['SOMETHING_NEW', 'None', { kind: 'gone', cause: 'unknown' }],
];

describe('jobStatus', () => {
  it.each(STATES)('%s (%s)', (state, reason, expected) => {
    const s = jobStatus(state, reason);
    expect(s).toMatchObject(expected);
    expect(s.words).toBeTruthy();
  });

  it('covers every state of the table', () => {
    const tested = new Set(STATES.map(([state]) => state));
    expect(Object.keys(JOB_STATE_TABLE).filter((s) => !tested.has(s))).toEqual([]);
  });

  it("keeps Slurm's words beside its own", () => {
    expect(jobStatus('TIMEOUT', 'TimeLimit')).toEqual({
      kind: 'gone',
      cause: 'time_limit',
      words: 'was ended by Slurm at its time limit',
      slurm: 'TIMEOUT (TimeLimit)',
    });
    expect(jobStatus('PENDING', 'Resources')).toEqual({
      kind: 'pending',
      reason: 'Resources',
      blocked: false,
      words: 'waiting for free nodes',
      slurm: 'PENDING (Resources)',
    });
    expect(jobStatus('REQUEUED', 'BeginTime').words).toBe(
      'put back in the queue by Slurm; waiting for its begin time (a requeued job waits about 2 minutes)',
    );
    expect(jobStatus('PENDING', 'SomeSiteReason')).toMatchObject({ words: 'SomeSiteReason' });
    expect(jobStatus('RUNNING', 'None').slurm).toBe('RUNNING');
  });

  it('reads a state with words after it, in any case', () => {
    expect(jobStatus('CANCELLED by 1000', 'None')).toMatchObject({ cause: 'cancelled' });
    expect(jobStatus(' running ', '')).toMatchObject({ kind: 'running' });
  });

  it('a job Slurm no longer lists is gone, cause unknown', () => {
    expect(missingJobStatus()).toMatchObject({ kind: 'gone', cause: 'unknown' });
  });
});
