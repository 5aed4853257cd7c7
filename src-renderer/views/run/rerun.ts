import type { ErrorData, RunView } from '../../../src-main/contract';

/** A run that has ended can be run again (same job and pool, warm nodes first). */
export function canRerun(run: Pick<RunView, 'status'>): boolean {
  return run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled';
}

/** The secret a rerun refused for: Tender keeps no secret values, so each must be given
 *  again. Null for any other error. */
export function missingSecret(error: ErrorData | null): string | null {
  if (error?.code !== 'bad_input') return null;
  return /had the secret (\S+), which Tender does not keep/.exec(error.message)?.[1] ?? null;
}
