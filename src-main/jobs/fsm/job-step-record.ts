import type { Ledger } from '../../ledger/ledger';
import type { JobEvent, JobState } from './job-fsm';

/** Commits a job step: the attempt's new state, and a journal row naming the event. */
export function journalJobStep(
  ledger: Ledger,
  nodeId: string,
  event: JobEvent,
  prev: JobState,
  next: JobState,
  now: number,
): void {
  ledger.updateAttempt(
    nodeId,
    {
      status: next.status,
      phase: next.phase,
      exitCode: next.exitCode,
      reason: next.reason,
      attempt: next.attempt,
    },
    {
      kind: `job.${event.type}`,
      data: {
        from: `${prev.status}/${prev.phase}`,
        to: `${next.status}/${next.phase}`,
        // A new attempt names what it recovers from (the chain of reasons; notices).
        ...(next.attempt !== prev.attempt
          ? { attempt: next.attempt, recoveredFrom: next.recoveredFrom ?? null }
          : {}),
      },
    },
    now,
  );
}

/** The progress line for a job step: only a change of status or phase is worth one, with
 *  the reason when it is new. */
export function stepNote(prev: JobState, next: JobState): string | null {
  if (prev.status === next.status && prev.phase === next.phase) return null;
  const why = next.reason && next.reason !== prev.reason ? ` (${next.reason})` : '';
  return `job ${next.status}: ${next.phase.replace('_', ' ')}${why}`;
}
