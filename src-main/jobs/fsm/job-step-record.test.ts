import { afterEach, describe, expect, it } from 'vitest';
import { bareRecordIn, T0, tempLedgerWithRun } from '../../nodes/node-fixtures';
import { initialJobState, type JobState } from './job-fsm';
import { journalJobStep, stepNote } from './job-step-record';

const base = initialJobState({ hasWorkspace: false, hasSetup: false });
const s = (extra: Partial<JobState>): JobState => ({ ...base, ...extra });

describe('stepNote: the progress line of a job step', () => {
  it.each<[string, JobState, JobState, string | null]>([
    ['nothing changed', s({}), s({}), null],
    ['only the reason changed', s({ phase: 'run' }), s({ phase: 'run', reason: 'x' }), null],
    [
      'a new phase',
      s({ status: 'running', phase: 'run' }),
      s({ status: 'running', phase: 'collecting' }),
      'job running: collecting',
    ],
    [
      'a new status with a new reason',
      s({ status: 'running', phase: 'run' }),
      s({ status: 'failed', phase: 'collecting', reason: 'run exited 3' }),
      'job failed: collecting (run exited 3)',
    ],
    [
      'a reason already shown is not repeated',
      s({ status: 'failed', phase: 'collecting', reason: 'run exited 3' }),
      s({ status: 'failed', phase: 'tearing_down', reason: 'run exited 3' }),
      'job failed: tearing down',
    ],
  ])('%s', (_name, prev, next, want) => {
    expect(stepNote(prev, next)).toBe(want);
  });
});

describe('journalJobStep: the attempt row and a journal row, in the real ledger', () => {
  const closers: (() => void)[] = [];
  afterEach(() => closers.splice(0).forEach((c) => c()));

  it('records the new state and names the event with where it came from', () => {
    const rec = bareRecordIn('new');
    const { ledger, close } = tempLedgerWithRun([rec]);
    closers.push(close);
    const prev = s({ status: 'running', phase: 'run' });
    const next = s({ status: 'failed', phase: 'collecting', exitCode: 3, reason: 'run exited 3' });

    journalJobStep(
      ledger,
      rec.id,
      { type: 'JobExited', code: 3, signal: null },
      prev,
      next,
      T0 + 5,
    );

    expect(ledger.getAttempt(rec.id)).toMatchObject({
      status: 'failed',
      phase: 'collecting',
      exitCode: 3,
      reason: 'run exited 3',
      updatedAt: T0 + 5,
    });
    expect(ledger.journal(rec.runId).at(-1)).toMatchObject({
      kind: 'job.JobExited',
      nodeId: rec.id,
      data: { from: 'running/run', to: 'failed/collecting' },
    });
  });
});
