import { TenderError } from '../../base/tender-error';
import type { NodeShell } from '../../transport/node-shell';
import { runSlurm } from './slurm-exec';
import { JOB_ID } from './squeue';

/** `scancel <id> <id> …`: one call for every job. */
export function scancelCommand(ids: string[]): string {
  if (ids.length === 0) throw new TenderError('bad_input', 'scancel needs at least one job id');
  for (const id of ids)
    if (!JOB_ID.test(id)) throw new TenderError('bad_input', `bad Slurm job id "${id}"`);
  return `scancel ${ids.join(' ')}`;
}

/** Words of scancel's that mean the job is already ended or unknown: a cancel of it has
 *  nothing left to do (Slurm 22.05 says nothing at all, exit 0, for an unknown id; older
 *  ones print these). */
const ALREADY_DONE = /already completing or completed|invalid job id specified/i;

/** Cancels the jobs over the login node's shell. Idempotent: a job that already ended, or
 *  that Slurm no longer knows, is not an error. Throws `SlurmError` otherwise (a job of
 *  another user: "Access/permission denied"). Returns when Slurm has accepted the cancel;
 *  the jobs may be COMPLETING a moment longer. */
export async function cancelJobs(
  shell: NodeShell,
  ids: string[],
  signal?: AbortSignal,
): Promise<void> {
  await runSlurm(
    shell,
    { command: scancelCommand(ids) },
    { command: 'scancel' },
    {
      ...(signal ? { signal } : {}),
      accept: (r) => {
        const errors = r.stderr.split('\n').filter((l) => /error/i.test(l));
        return errors.length > 0 && errors.every((l) => ALREADY_DONE.test(l));
      },
    },
  );
}
