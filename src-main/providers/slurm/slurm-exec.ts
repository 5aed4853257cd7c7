import { type CapturedExec, execCapture } from '../../transport/exec-helpers';
import type { NodeShell } from '../../transport/node-shell';
import { slurmError, type SlurmErrorContext } from './slurm-error';

/** One Slurm command line as the builders make it: `command` for `bash -c` on the login
 *  node, every value in it shell-quoted; `stdin`, when the command reads one (sbatch's
 *  script). */
export interface SlurmCommand {
  command: string;
  stdin?: string;
}

/** Runs a Slurm command on the login node and returns its output. A non-zero exit throws
 *  `SlurmError` unless `accept` says the answer is one the caller reads itself (squeue's
 *  "Invalid job id specified" is an empty listing, not a failure). */
export async function runSlurm(
  shell: NodeShell,
  cmd: SlurmCommand,
  ctx: Omit<SlurmErrorContext, 'where'>,
  opts: { signal?: AbortSignal; accept?: (r: CapturedExec) => boolean } = {},
): Promise<CapturedExec> {
  const r = await execCapture(shell, cmd.command, {
    ...(cmd.stdin !== undefined ? { stdin: cmd.stdin } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  opts.signal?.throwIfAborted();
  if (r.code === 0 || opts.accept?.(r)) return r;
  throw slurmError(r, { ...ctx, where: shell.description });
}
