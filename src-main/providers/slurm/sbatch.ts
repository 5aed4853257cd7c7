import { TenderError } from '../../base/tender-error';
import { shq } from '../../transport/exec-helpers';
import type { NodeShell } from '../../transport/node-shell';
import { runSlurm, type SlurmCommand } from './slurm-exec';

/** One batch job as Tender submits it. */
export interface SbatchRequest {
  /** `--job-name`: Tender's label, so the job is found again by name. No comma or newline
   *  (squeue's `--name` filter is a comma list). */
  jobName: string;
  /** `--nodes`. */
  nodes: number;
  /** CPUs for the job's one task (`--cpus-per-task`); Slurm's default (1) when absent. */
  cpus?: number;
  /** GPUs on each node: `--gres=gpu:N`, which every select plugin takes (`--gpus-per-node`
   *  needs select/cons_tres). */
  gpus?: number;
  /** `--time` in minutes (Slurm's own unit); the partition's default when absent. */
  timeLimitMin?: number;
  /** One partition, or several as Slurm takes them (`a,b`: the first that can start it). */
  partition?: string;
  account?: string;
  qos?: string;
  /** The batch script, passed on stdin; must start with `#!`, as sbatch insists. */
  script: string;
  /** `--output` (stdout and stderr together), on the cluster's filesystem; `%j` is the job
   *  id. Relative to the submitting directory (the login session's HOME). */
  output: string;
  /** False: `--no-requeue`, so a node failure ends the job in NODE_FAIL instead of putting
   *  it back in the queue (Slurm's default on most clusters, JobRequeue=1: the job reruns
   *  from the start, after a ~2 min BeginTime hold). Absent: the cluster's default. */
  requeue?: boolean;
}

/** The sbatch command line for a request. `--parsable` makes the answer `<id>[;cluster]`.
 *
 *  The script travels on stdin, not `--wrap`: `--wrap` turns one command line into a
 *  `#!/bin/sh` script, so the script would be quoted twice (for the ssh command and for
 *  sh), be limited by the command-line length, show in `ps` on the login node, and lose
 *  its own interpreter; stdin carries it byte for byte. */
export function sbatchCommand(req: SbatchRequest): SlurmCommand {
  if (!/^[^,\n\r]+$/.test(req.jobName))
    throw new TenderError('bad_input', `job name "${req.jobName}" has a comma or newline`);
  if (!req.script.startsWith('#!'))
    throw new TenderError(
      'bad_input',
      'a batch script must start with #! and its interpreter (sbatch refuses it otherwise)',
    );
  if (req.output.trim() === '') throw new TenderError('bad_input', 'sbatch needs an output path');
  const args = [
    '--parsable',
    `--job-name=${shq(req.jobName)}`,
    `--nodes=${positive('nodes', req.nodes)}`,
  ];
  if (req.cpus !== undefined) args.push(`--cpus-per-task=${positive('cpus', req.cpus)}`);
  if (req.gpus !== undefined) args.push(`--gres=${shq(`gpu:${positive('gpus', req.gpus)}`)}`);
  if (req.timeLimitMin !== undefined)
    args.push(`--time=${positive('time limit (minutes)', req.timeLimitMin)}`);
  if (req.partition !== undefined)
    args.push(`--partition=${named('partition', req.partition, /^[^\s,]+(,[^\s,]+)*$/)}`);
  if (req.account !== undefined) args.push(`--account=${named('account', req.account)}`);
  if (req.qos !== undefined) args.push(`--qos=${named('qos', req.qos)}`);
  if (req.requeue === false) args.push('--no-requeue');
  if (req.requeue === true) args.push('--requeue');
  args.push(`--output=${shq(req.output)}`);
  return { command: `sbatch ${args.join(' ')}`, stdin: req.script };
}

/** A submitted job. `cluster` is set where sbatch names it (`12345;cluster`: a federation
 *  or a `--clusters` submission). */
export interface SubmittedJob {
  jobId: string;
  cluster: string | null;
}

/** The job id from `sbatch --parsable`'s stdout: the last line that is one. Lines before it
 *  (a login shell's greeting) are passed over. */
export function parseSbatch(stdout: string): SubmittedJob {
  const lines = stdout.split('\n').map((l) => l.trim());
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^(\d+)(?:;(\S+))?$/.exec(lines[i]!);
    if (m) return { jobId: m[1]!, cluster: m[2] ?? null };
  }
  throw new Error(`sbatch answered no job id: ${JSON.stringify(stdout.slice(-200))}`);
}

/** Submits the job over the login node's shell. Throws `SlurmError` when sbatch refuses it. */
export async function submitJob(
  shell: NodeShell,
  req: SbatchRequest,
  signal?: AbortSignal,
): Promise<SubmittedJob> {
  const r = await runSlurm(
    shell,
    sbatchCommand(req),
    {
      command: 'sbatch',
      ...(req.partition !== undefined ? { partition: req.partition } : {}),
      ...(req.account !== undefined ? { account: req.account } : {}),
      ...(req.qos !== undefined ? { qos: req.qos } : {}),
    },
    signal ? { signal } : {},
  );
  return parseSbatch(r.stdout);
}

function positive(what: string, n: number): number {
  if (!Number.isInteger(n) || n < 1)
    throw new TenderError('bad_input', `${what} must be a whole number ≥ 1, not ${n}`);
  return n;
}

/** A partition, account or QOS name, quoted. Slurm's names have no blanks or commas. */
function named(what: string, value: string, form = /^[^\s,]+$/): string {
  if (!form.test(value))
    throw new TenderError('bad_input', `${what} "${value}" is empty or has a blank or comma`);
  return shq(value);
}
