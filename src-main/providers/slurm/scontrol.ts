import { TenderError } from '../../base/tender-error';
import type { NodeShell } from '../../transport/node-shell';
import { runSlurm } from './slurm-exec';
import { JOB_ID, slurmTime } from './squeue';

/** One job as `scontrol show job` tells it: what the app shows of a job that ended (there
 *  being no accounting database on many clusters, `sacct` may not exist), and every field
 *  as printed in `fields`. */
export interface SlurmJobRecord {
  jobId: string;
  name: string;
  /** `JobState`: `COMPLETED`, `FAILED`, `TIMEOUT`, `NODE_FAIL`, `PREEMPTED`, `CANCELLED`,
   *  `PENDING`, `RUNNING`, … */
  state: string;
  /** `Reason`: `TimeLimit`, `NodeDown`, `NonZeroExitCode`, `BeginTime`, `None`, … */
  reason: string;
  /** `ExitCode=<code>:<signal>` of the batch script. */
  exitCode: number | null;
  exitSignal: number | null;
  /** How often Slurm requeued it (a requeued job reruns from the start). */
  restarts: number;
  /** Whether Slurm puts it back in the queue after a node failure. */
  requeue: boolean;
  /** `NodeList`: a hostlist; empty when none (pending, requeued). */
  nodes: string;
  partition: string;
  startTime: string | null;
  endTime: string | null;
  /** `StdOut`: where its output goes. */
  stdOut: string;
  fields: Record<string, string>;
}

/** `scontrol --oneliner show job <id>`. */
export function scontrolShowJobCommand(jobId: string): string {
  if (!JOB_ID.test(jobId)) throw new TenderError('bad_input', `bad Slurm job id "${jobId}"`);
  return `scontrol --oneliner show job ${jobId}`;
}

/** Every job record in scontrol's answer, one-line or multi-line (records apart by a blank
 *  line; an array job prints one per task). Lines before the first `JobId=` are passed over. */
export function parseScontrolJobs(stdout: string): SlurmJobRecord[] {
  const start = stdout.search(/(^|\n)JobId=/);
  if (start < 0) return [];
  return stdout
    .slice(start)
    .split(/\n(?=JobId=)|\n\s*\n/)
    .map((chunk) => chunk.trim())
    .filter((chunk) => chunk.startsWith('JobId='))
    .map((chunk) => toRecord(keyValues(chunk)));
}

/** The record of `jobId` in scontrol's answer, or null. */
export function parseScontrolShowJob(stdout: string, jobId?: string): SlurmJobRecord | null {
  const jobs = parseScontrolJobs(stdout);
  return (jobId === undefined ? jobs[0] : jobs.find((j) => j.jobId === jobId)) ?? null;
}

/** `Key=value` pairs, where a value runs to the next blank followed by a key (`Reason=` and
 *  `WorkDir=` values may hold blanks; `TRES=cpu=1,node=1` holds `=`). */
export function keyValues(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const key = /(?:^|\s)([A-Za-z][\w/:.-]*)=/g;
  const marks: { key: string; at: number; end: number }[] = [];
  for (let m = key.exec(text); m; m = key.exec(text))
    marks.push({ key: m[1]!, at: m.index, end: m.index + m[0].length });
  marks.forEach((mark, i) => {
    const next = marks[i + 1]?.at ?? text.length;
    out[mark.key] ??= text.slice(mark.end, next).trim();
  });
  return out;
}

/** Looks a job up over the login node's shell; null when Slurm no longer knows it (it ended
 *  more than MinJobAge ago, 300 s by default, or never was). */
export async function showJob(
  shell: NodeShell,
  jobId: string,
  signal?: AbortSignal,
): Promise<SlurmJobRecord | null> {
  const r = await runSlurm(
    shell,
    { command: scontrolShowJobCommand(jobId) },
    { command: 'scontrol' },
    {
      ...(signal ? { signal } : {}),
      accept: (x) => /invalid job id specified/i.test(x.stderr),
    },
  );
  return r.code === 0 ? parseScontrolShowJob(r.stdout, jobId) : null;
}

function toRecord(f: Record<string, string>): SlurmJobRecord {
  const [code, sig] = (f.ExitCode ?? '').split(':');
  return {
    jobId: f.JobId ?? '',
    name: f.JobName ?? '',
    state: (f.JobState ?? '').split(/\s/)[0]!,
    reason: f.Reason ?? '',
    exitCode: int(code),
    exitSignal: int(sig),
    restarts: int(f.Restarts) ?? 0,
    requeue: f.Requeue === '1',
    nodes: notNull(f.NodeList),
    partition: notNull(f.Partition),
    startTime: slurmTime(f.StartTime ?? ''),
    endTime: slurmTime(f.EndTime ?? ''),
    stdOut: notNull(f.StdOut),
    fields: f,
  };
}

function int(s: string | undefined): number | null {
  return s !== undefined && /^\d+$/.test(s) ? Number(s) : null;
}

function notNull(s: string | undefined): string {
  return s === undefined || s === '(null)' ? '' : s;
}
