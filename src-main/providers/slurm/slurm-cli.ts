// The Slurm commands the provider runs on a cluster's login node, and what their output
// means (docs/slurm.md). Builders and parsers are pure; `run` executes one over SSH.
import { shq } from '../../transport/exec-helpers';

/** A job as `squeue` shows it (QUEUE_FORMAT). */
export interface QueueRow {
  jobId: string;
  name: string;
  state: string;
  /** Why it is pending (`Resources`, `Priority`, `QOSMaxJobsPerUserLimit`…), or its node
   *  list while it runs. */
  reason: string;
  startTime: string;
}

/** `%i|%j|%T|%R|%S`: id, name, state, reason or nodes, (expected) start. */
export const QUEUE_FORMAT = '%i|%j|%T|%R|%S';

export interface SubmitRequest {
  label: string;
  gpus: number;
  partition: string | null;
  account: string | null;
  qos: string | null;
  /** `--time` in minutes; null: the partition's default. */
  timeLimitMin: number | null;
}

/** `sbatch --parsable …` reading the batch script from stdin. Output and errors of the
 *  script go to the node folder's `slurm-<id>.out` (the bootstrap never reads them; a
 *  person debugging a cluster might). */
export function sbatchCommand(r: SubmitRequest): string {
  const args = [
    'sbatch',
    '--parsable',
    `--job-name=${shq(r.label)}`,
    '--nodes=1',
    '--ntasks=1',
    `--output=${shq(`.tender/slurm-%j.out`)}`,
    ...(r.gpus > 0 ? [`--gres=${shq(`gpu:${r.gpus}`)}`] : []),
    ...(r.timeLimitMin !== null ? [`--time=${Math.max(1, Math.ceil(r.timeLimitMin))}`] : []),
    ...(r.partition ? [`--partition=${shq(r.partition)}`] : []),
    ...(r.account ? [`--account=${shq(r.account)}`] : []),
    ...(r.qos ? [`--qos=${shq(r.qos)}`] : []),
  ];
  return `mkdir -p "$HOME"/.tender && cd "$HOME" && ${args.join(' ')}`;
}

/** `12345` or `12345;cluster`. */
export function parseSbatch(stdout: string): string | null {
  const m = /^(\d+)(?:;\S+)?\s*$/m.exec(stdout.trim());
  return m ? m[1]! : null;
}

export function squeueCommand(f: { jobIds?: string[]; me?: boolean }): string {
  return [
    'squeue',
    '-h',
    ...(f.me ? ['--me'] : []),
    ...(f.jobIds?.length ? [`--jobs=${f.jobIds.map(shq).join(',')}`] : []),
    `-o ${shq(QUEUE_FORMAT)}`,
  ].join(' ');
}

export function parseSqueue(stdout: string): QueueRow[] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [jobId = '', name = '', state = '', reason = '', startTime = ''] = l.split('|');
      return { jobId, name, state, reason: reason.replace(/^\((.*)\)$/, '$1'), startTime };
    })
    .filter((r) => /^\d+$/.test(r.jobId));
}

export function scancelCommand(ids: string[]): string {
  return `scancel ${ids.map(shq).join(' ')}`;
}

/** `scontrol show job <id> -o`: one line of Key=Value; what ended it. */
export function scontrolCommand(id: string): string {
  return `scontrol show job ${shq(id)} -o`;
}

export function parseScontrol(stdout: string): { state: string; reason: string } | null {
  const state = /\bJobState=(\S+)/.exec(stdout)?.[1];
  if (!state) return null;
  return { state, reason: /\bReason=(\S+)/.exec(stdout)?.[1] ?? 'None' };
}

export type SlurmRefusal = 'bad_partition' | 'bad_account' | 'bad_qos' | 'no_sbatch' | 'refused';

/** What sbatch's refusal means, and the fix to name. */
export function sbatchRefusal(
  stderr: string,
  code: number | null,
): { kind: SlurmRefusal; text: string; hint: string } {
  const text = stderr.trim().split('\n').filter(Boolean).slice(-1)[0] ?? `sbatch exited ${code}`;
  if (code === 127 || /sbatch: (command )?not found/.test(stderr))
    return {
      kind: 'no_sbatch',
      text: 'sbatch is not on the login node’s PATH',
      hint: 'is this a Slurm login node? check the cluster’s host (`tender clusters list`), or add Slurm’s bin folder to PATH in ~/.bashrc there',
    };
  if (/invalid partition/i.test(stderr))
    return {
      kind: 'bad_partition',
      text,
      hint: 'pick a partition `sinfo -s` lists on the login node: `tender clusters remove` and add it again with --partition, or set [pool] partition',
    };
  if (/invalid account/i.test(stderr))
    return {
      kind: 'bad_account',
      text,
      hint: 'use an account `sacctmgr show assoc user=$USER` lists (or none): --account on `tender clusters add`',
    };
  if (/invalid qos/i.test(stderr))
    return { kind: 'bad_qos', text, hint: 'use a QOS your association allows, or none' };
  return { kind: 'refused', text, hint: 'Slurm refused the job: see its words above' };
}

/** Slurm's states of a job that is still there to wait for. */
export const WAITING = new Set(['PENDING', 'CONFIGURING', 'REQUEUED', 'RESIZING', 'SUSPENDED']);
export const RUNNING = new Set(['RUNNING', 'COMPLETING']);

/** A finished job in Slurm's words, and what it means to a run's recovery rules. */
export function endedBecause(
  state: string,
  reason: string,
): { words: string; cause: 'node_lost' | 'preempted' | 'ended' } {
  switch (state) {
    case 'TIMEOUT':
      return { words: 'Slurm: the time limit was reached (TIMEOUT)', cause: 'ended' };
    case 'NODE_FAIL':
      return {
        words: `Slurm: its node failed (NODE_FAIL${reason !== 'None' ? `, ${reason}` : ''})`,
        cause: 'node_lost',
      };
    case 'PREEMPTED':
      return { words: 'Slurm preempted it (PREEMPTED)', cause: 'preempted' };
    case 'BOOT_FAIL':
      return { words: 'Slurm could not boot its node (BOOT_FAIL)', cause: 'node_lost' };
    case 'OUT_OF_MEMORY':
      return { words: 'Slurm: out of memory (OUT_OF_MEMORY)', cause: 'ended' };
    case 'CANCELLED':
      return {
        words: `Slurm: cancelled${reason !== 'None' ? ` (${reason})` : ''}`,
        cause: 'ended',
      };
    default:
      return { words: `Slurm: ${state}${reason !== 'None' ? ` (${reason})` : ''}`, cause: 'ended' };
  }
}
