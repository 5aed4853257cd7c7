// A node inside a Slurm allocation, reached through its cluster's login node (docs/slurm.md):
// every command runs as `srun --jobid=<id> --overlap -N1 -n1 bash -c <command>` over the
// login node's SSH connection. No sshd is needed on compute nodes, and nothing runs there
// but what the allocation allows. srun carries stdin, stdout and stderr and exits with the
// command's status. There is no direct socket or TCP to the compute node this way: the agent
// link is `attach` (as on a local node), and port forwards are not offered.
import type { ExecChannel, NodeShell } from './node-shell';
import { shq } from './exec-helpers';

/** The login node's shell, as far as this needs it. */
export interface LoginShell {
  readonly description: string;
  readonly closed?: Promise<string>;
  exec(command: string): ExecChannel;
  close(): Promise<void>;
}

/** The command that runs `command` in the allocation `jobId`. `--overlap`: beside the
 *  batch script and the other steps, on the allocation's resources (Slurm ≥ 20.11). */
export function srunCommand(jobId: string, command: string): string {
  return `srun --jobid=${shq(jobId)} --overlap -N1 -n1 --quiet --kill-on-bad-exit=0 bash -c ${shq(command)}`;
}

export class SrunShell implements NodeShell {
  readonly description: string;
  readonly closed?: Promise<string>;

  constructor(
    private readonly login: LoginShell,
    private readonly jobId: string,
  ) {
    this.description = `slurm job ${jobId} via ${login.description}`;
    if (login.closed) this.closed = login.closed;
  }

  exec(command: string): ExecChannel {
    return this.login.exec(srunCommand(this.jobId, command));
  }

  close(): Promise<void> {
    return this.login.close();
  }
}
