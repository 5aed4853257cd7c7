import { describe, expect, it } from 'vitest';
import type { LeaseParams } from '../../wire/protocol';
import {
  type DeadManState,
  defaultCheckMs,
  due,
  formatDuration,
  nextDeadline,
  noteBusy,
  noteJobEnded,
  renewState,
} from './dead-man';

const base: LeaseParams = {
  graceMs: 1_000,
  afterJob: 'keep_warm',
  teardown: { kind: 'remove-files' },
};

/** Armed at t=0 with `policy`, then each step: [t, policy] renewals or [t, 'busy']. */
function stateAfter(
  policy: Partial<LeaseParams>,
  steps: [number, Partial<LeaseParams> | 'busy' | 'ended'][] = [],
) {
  let s: DeadManState = renewState(undefined, { ...base, ...policy }, 0);
  for (const [t, step] of steps) {
    s =
      step === 'busy'
        ? noteBusy(s, t)
        : step === 'ended'
          ? noteJobEnded(s, t)
          : renewState(s, { ...base, ...step }, t);
  }
  return s;
}

describe('due', () => {
  const cases: {
    name: string;
    policy: Partial<LeaseParams>;
    steps?: [number, Partial<LeaseParams> | 'busy' | 'ended'][];
    now: number;
    isRunning?: boolean;
    want: string | null;
  }[] = [
    // The app being away never stops a running job.
    {
      name: 'a running job outlives the app: no unreachable',
      policy: {},
      now: 86_400_000,
      isRunning: true,
      want: null,
    },
    {
      name: 'a running job still stops at max duration',
      policy: { maxDurationMs: 5_000 },
      now: 5_000,
      isRunning: true,
      want: 'max_duration',
    },
    {
      name: 'a running job still stops at its budget',
      policy: { budgetMs: 7_000 },
      now: 7_000,
      isRunning: true,
      want: 'budget',
    },
    {
      name: 'after the job, unreachable counts from its end',
      policy: { collected: true },
      steps: [[50_000, 'busy']],
      now: 50_999,
      want: null,
    },
    {
      name: 'after the job, unreachable one grace after its end',
      policy: { collected: true },
      steps: [[50_000, 'busy']],
      now: 51_000,
      want: 'unreachable',
    },
    {
      name: 'uncollected outputs wait the collect grace after the job ended',
      policy: { collectGraceMs: 60_000 },
      steps: [[50_000, 'ended']],
      now: 109_999,
      want: null,
    },
    {
      name: 'uncollected: fires when the collect grace is over',
      policy: { collectGraceMs: 60_000 },
      steps: [[50_000, 'ended']],
      now: 110_000,
      want: 'uncollected',
    },
    {
      name: 'uncollected waits at least the unreachable grace',
      policy: { graceMs: 90_000, collectGraceMs: 60_000 },
      steps: [[50_000, 'ended']],
      now: 139_999,
      want: null,
    },
    {
      name: 'once collected, the ordinary rules again',
      policy: { collectGraceMs: 60_000 },
      steps: [
        [50_000, 'ended'],
        [51_000, { collectGraceMs: 60_000, collected: true }],
      ],
      now: 52_000,
      want: 'unreachable',
    },
    { name: 'nothing before the grace', policy: {}, now: 999, want: null },
    { name: 'unreachable at the grace', policy: {}, now: 1_000, want: 'unreachable' },
    { name: 'a renewal resets the grace', policy: {}, steps: [[800, {}]], now: 1_700, want: null },
    {
      name: 'unreachable counts from the last renewal',
      policy: {},
      steps: [[800, {}]],
      now: 1_800,
      want: 'unreachable',
    },
    {
      name: 'max duration before the grace',
      policy: { graceMs: 10_000, maxDurationMs: 500 },
      now: 500,
      want: 'max_duration',
    },
    {
      name: 'max duration not yet',
      policy: { graceMs: 10_000, maxDurationMs: 500 },
      now: 499,
      want: null,
    },
    {
      name: 'max duration counts from the last renewal',
      policy: { graceMs: 10_000, maxDurationMs: 500 },
      steps: [[400, { graceMs: 10_000, maxDurationMs: 500 }]],
      now: 899,
      want: null,
    },
    {
      name: 'a renewal without max duration drops it',
      policy: { graceMs: 10_000, maxDurationMs: 500 },
      steps: [[100, { graceMs: 10_000 }]],
      now: 5_000,
      want: null,
    },
    { name: 'budget', policy: { graceMs: 10_000, budgetMs: 300 }, now: 300, want: 'budget' },
    { name: 'budget not yet', policy: { graceMs: 10_000, budgetMs: 300 }, now: 299, want: null },
    {
      name: 'the earliest of two passed deadlines wins',
      policy: { graceMs: 10_000, budgetMs: 300, maxDurationMs: 200 },
      now: 400,
      want: 'max_duration',
    },
    {
      name: 'job done after min(grace, 5 min) once collected',
      policy: { afterJob: 'destroy' },
      steps: [
        [100, { afterJob: 'destroy', collected: true }],
        [600, { afterJob: 'destroy', collected: true }],
      ],
      now: 1_100,
      want: 'job_done',
    },
    {
      name: 'job done not yet',
      policy: { afterJob: 'destroy' },
      steps: [
        [100, { afterJob: 'destroy', collected: true }],
        [600, { afterJob: 'destroy', collected: true }],
      ],
      now: 1_099,
      want: null,
    },
    {
      name: 'job done waits at most 5 min with a long grace',
      policy: { afterJob: 'destroy', graceMs: 3_600_000, collected: true },
      now: 300_000,
      want: 'job_done',
    },
    {
      name: 'no job done with keep_warm',
      policy: { graceMs: 10_000, collected: true },
      now: 9_999,
      want: null,
    },
    {
      name: 'idle from arming',
      policy: { graceMs: 10_000, idleTimeoutMs: 2_000 },
      now: 2_000,
      want: 'idle',
    },
    {
      name: 'never idle while a phase runs',
      policy: { graceMs: 10_000, idleTimeoutMs: 2_000 },
      now: 5_000,
      isRunning: true,
      want: null,
    },
    {
      name: 'idle counts from the last time a phase ran',
      policy: { graceMs: 10_000, idleTimeoutMs: 2_000 },
      steps: [[3_000, 'busy']],
      now: 4_999,
      want: null,
    },
    {
      name: 'idle after the phase ended',
      policy: { graceMs: 10_000, idleTimeoutMs: 2_000 },
      steps: [[3_000, 'busy']],
      now: 5_000,
      want: 'idle',
    },
    {
      name: 'an inUse renewal resets idle',
      policy: { graceMs: 10_000, idleTimeoutMs: 2_000 },
      steps: [[1_500, { graceMs: 10_000, idleTimeoutMs: 2_000, inUse: true }]],
      now: 3_499,
      want: null,
    },
    {
      name: 'a renewal without inUse does not reset idle',
      policy: { graceMs: 10_000, idleTimeoutMs: 2_000 },
      steps: [[1_500, { graceMs: 10_000, idleTimeoutMs: 2_000 }]],
      now: 2_000,
      want: 'idle',
    },
    {
      name: 'idle after the last inUse renewal',
      policy: { graceMs: 10_000, idleTimeoutMs: 2_000 },
      steps: [
        [1_500, { graceMs: 10_000, idleTimeoutMs: 2_000, inUse: true }],
        [2_500, { graceMs: 10_000, idleTimeoutMs: 2_000, inUse: false }],
      ],
      now: 3_500,
      want: 'idle',
    },
  ];
  it.each(cases)('$name', ({ policy, steps, now, isRunning, want }) => {
    expect(due(stateAfter(policy, steps), now, isRunning ?? false)?.cause ?? null).toBe(want);
  });

  // idle_gpu_util_below: a running job whose GPUs sit below the threshold is idle too.
  const gpuIdle = { graceMs: 10_000, idleTimeoutMs: 2_000, idleGpuUtilBelow: 5 };
  const gpuCases: {
    name: string;
    policy: Partial<LeaseParams>;
    steps?: [number, Partial<LeaseParams> | 'busy' | 'ended'][];
    now: number;
    isRunning: boolean;
    gpuIdleSince: number | null;
    want: string | null;
  }[] = [
    {
      name: 'GPU-idle: fires idle_timeout after the GPUs went idle',
      policy: gpuIdle,
      now: 3_000,
      isRunning: true,
      gpuIdleSince: 1_000,
      want: 'idle',
    },
    {
      name: 'GPU-idle: not before idle_timeout',
      policy: gpuIdle,
      now: 2_999,
      isRunning: true,
      gpuIdleSince: 1_000,
      want: null,
    },
    {
      name: 'GPU-idle: off without a threshold (the default)',
      policy: { graceMs: 10_000, idleTimeoutMs: 2_000 },
      now: 60_000,
      isRunning: true,
      gpuIdleSince: 0,
      want: null,
    },
    {
      name: 'GPU-idle: off without an idle timeout',
      policy: { graceMs: 10_000, idleGpuUtilBelow: 5 },
      now: 60_000,
      isRunning: true,
      gpuIdleSince: 0,
      want: null,
    },
    {
      name: 'GPU-idle: busy GPUs (or no reading) keep a running job',
      policy: gpuIdle,
      now: 60_000,
      isRunning: true,
      gpuIdleSince: null,
      want: null,
    },
    {
      name: 'GPU-idle: counted from arming at the earliest',
      policy: gpuIdle,
      steps: [[0, 'busy']],
      now: 1_999,
      isRunning: true,
      gpuIdleSince: -50_000,
      want: null,
    },
    {
      name: 'GPU-idle: an attached app (inUse) does not hold it off',
      policy: gpuIdle,
      steps: [[2_500, { ...gpuIdle, inUse: true }]],
      now: 3_000,
      isRunning: true,
      gpuIdleSince: 1_000,
      want: 'idle',
    },
    {
      name: 'GPU-idle: the app being away still never stops a busy job',
      policy: gpuIdle,
      now: 86_400_000,
      isRunning: true,
      gpuIdleSince: null,
      want: null,
    },
    {
      name: 'GPU-idle: with no job running, the ordinary idle rule',
      policy: gpuIdle,
      now: 2_000,
      isRunning: false,
      gpuIdleSince: null,
      want: 'idle',
    },
    {
      name: 'GPU-idle: max duration still comes first when earlier',
      policy: { ...gpuIdle, maxDurationMs: 1_500 },
      now: 3_000,
      isRunning: true,
      gpuIdleSince: 1_000,
      want: 'max_duration',
    },
  ];
  it.each(gpuCases)('$name', ({ policy, steps, now, isRunning, gpuIdleSince, want }) => {
    expect(due(stateAfter(policy, steps), now, isRunning, gpuIdleSince)?.cause ?? null).toBe(want);
  });

  it('says a GPU-idle firing is about the GPUs', () => {
    const s = stateAfter({ graceMs: 1e7, idleTimeoutMs: 1_200_000, idleGpuUtilBelow: 5 });
    expect(due(s, 1_200_000, true, 0)?.reason).toBe(
      'GPU-idle: every GPU below 5% for 20 min while the job ran',
    );
  });

  it('says for how long the app was unreachable, and why the others fired', () => {
    expect(due(stateAfter({ graceMs: 2_100_000 }), 2_100_000, false)?.reason).toBe(
      'app unreachable for 35 min',
    );
    expect(due(stateAfter({ graceMs: 600 }), 700, false)?.reason).toBe('app unreachable for 0.7 s');
    expect(due(stateAfter({ budgetMs: 0 }), 0, false)?.reason).toBe('budget reached');
    expect(due(stateAfter({ maxDurationMs: 0 }), 0, false)?.reason).toBe('max duration reached');
    const collected = { afterJob: 'destroy', collected: true } as const;
    expect(due(stateAfter(collected, [[500, collected]]), 1_000, false)?.reason).toBe(
      'job finished and outputs collected',
    );
    expect(
      due(stateAfter({ graceMs: 1e7, idleTimeoutMs: 1_200_000 }), 1_200_000, false)?.reason,
    ).toBe('idle for 20 min with no job running');
  });

  it('keeps the first collected time across renewals', () => {
    const s = stateAfter({ afterJob: 'destroy', graceMs: 1_000 }, [
      [100, { afterJob: 'destroy', collected: true }],
      [900, { afterJob: 'destroy', collected: true }],
    ]);
    expect(s.collectedAt).toBe(100);
    expect(renewState(s, { ...base, collected: false }, 950).collectedAt).toBeNull();
  });
});

describe('nextDeadline', () => {
  it('is the renewal with nothing else set', () => {
    expect(nextDeadline(stateAfter({}), 250, false)).toEqual({
      firesInMs: 750,
      cause: 'unreachable',
    });
  });

  it('is the earliest deadline, never negative', () => {
    const s = stateAfter({ graceMs: 10_000, budgetMs: 4_000, maxDurationMs: 6_000 });
    expect(nextDeadline(s, 1_000, false)).toEqual({ firesInMs: 3_000, cause: 'budget' });
    expect(nextDeadline(s, 5_000, false)).toEqual({ firesInMs: 0, cause: 'budget' });
  });

  it('leaves idle out while a phase runs', () => {
    const s = stateAfter({ graceMs: 10_000, idleTimeoutMs: 1_000 });
    expect(nextDeadline(s, 0, false).cause).toBe('idle');
    expect(nextDeadline(s, 0, true).cause).toBe('unreachable');
  });

  it('counts the GPU-idle deadline of a running job once its GPUs are idle', () => {
    const s = stateAfter({ graceMs: 10_000, idleTimeoutMs: 4_000, idleGpuUtilBelow: 5 });
    expect(nextDeadline(s, 1_000, true, null)).toEqual({
      firesInMs: 10_000,
      cause: 'unreachable',
    });
    expect(nextDeadline(s, 1_000, true, 500)).toEqual({ firesInMs: 3_500, cause: 'idle' });
  });
});

describe('defaultCheckMs and formatDuration', () => {
  it.each([
    [100, 100],
    [600, 150],
    [60_000, 15_000],
    [3_600_000, 15_000],
  ])('checks a %i ms grace every %i ms', (grace, check) => {
    expect(defaultCheckMs(grace)).toBe(check);
  });

  it.each([
    [650, '0.7 s'],
    [42_000, '42 s'],
    [35 * 60_000, '35 min'],
    [6 * 3_600_000, '6h'],
    [6.5 * 3_600_000, '6h 30 min'],
  ])('writes %i ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
