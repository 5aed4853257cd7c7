import { TenderError } from '../../base/tender-error';
import { shq } from '../../transport/exec-helpers';
import type { NodeShell } from '../../transport/node-shell';
import { runSlurm } from './slurm-exec';

/** One row of squeue as Tender reads it. Strings are Slurm's words. */
export interface SqueueRow {
  jobId: string;
  name: string;
  /** `PENDING`, `RUNNING`, `COMPLETING`, … (`%T`; slurm-status.ts reads it). */
  state: string;
  /** Why it is pending, or why it ended (`Resources`, `Priority`, `BeginTime`, `NodeDown`,
   *  `TimeLimit`); `None` while running. May hold blanks and punctuation. */
  reason: string;
  /** The allocated nodes as a Slurm hostlist (`vm`, `vm,vm-2`, `gpu[01-04]`); empty while
   *  pending. */
  nodes: string;
  /** `%L` as printed: `9:58`, `1-02:03:04`, `UNLIMITED`, `NOT_SET`, `INVALID`. */
  timeLeft: string;
  /** `timeLeft` in seconds; null for UNLIMITED, NOT_SET and INVALID (an ended job). */
  timeLeftS: number | null;
  /** `%S`: when it started, or (pending) when the scheduler expects it to; null when Slurm
   *  does not know (`N/A`). Local time of the cluster, no zone: `2026-12-01T18:57:07`. */
  startTime: string | null;
}

export interface SqueueQuery {
  /** Only the login user's jobs (`--me`, Slurm ≥ 20.11). */
  user?: true;
  /** Only jobs with these names (`--name`). */
  names?: string[];
  /** Only these jobs (`--jobs`). */
  jobIds?: string[];
  /** Ended jobs too (`--states=all`): Slurm keeps them listed for MinJobAge (300 s by
   *  default) after they end. */
  allStates?: true;
  /** `--start`: pending jobs only, in order of expected start; their `startTime` is the
   *  scheduler's estimate, null (`N/A`) until the backfill scheduler has one (a job waiting
   *  behind jobs with no time limit never gets one). */
  start?: true;
}

/** The unit separator between fields: job names and reasons may hold `|` or blanks, and no
 *  Slurm text holds this. Written raw inside the single-quoted format, so no shell feature
 *  ($'…') is needed: the login shell may not be bash. */
export const SQUEUE_SEP = '\x1f';
const FIELDS = ['%i', '%j', '%T', '%r', '%N', '%L', '%S'];
export const SQUEUE_FORMAT = FIELDS.join(SQUEUE_SEP);

/** The squeue command line: no header (`-h`), one fixed `-o` format, the filters given. */
export function squeueCommand(q: SqueueQuery = {}): string {
  const args = ['-h', `-o ${shq(SQUEUE_FORMAT)}`];
  if (q.user) args.push('--me');
  if (q.names !== undefined) args.push(`--name=${list('name', q.names, /^[^,\n\r]+$/)}`);
  if (q.jobIds !== undefined) args.push(`--jobs=${list('job id', q.jobIds, JOB_ID)}`);
  if (q.allStates) args.push('--states=all');
  if (q.start) args.push('--start');
  return `squeue ${args.join(' ')}`;
}

/** A job id as Slurm prints one: `123`, an array task `123_4`, a het component `123+0`. */
export const JOB_ID = /^\d+([_+]\d+)?$/;

/** squeue's rows; any line that is not one (a login shell's greeting) is passed over. */
export function parseSqueue(stdout: string): SqueueRow[] {
  const rows: SqueueRow[] = [];
  for (const line of stdout.split('\n')) {
    const f = line.replace(/\r$/, '').split(SQUEUE_SEP);
    if (f.length !== FIELDS.length || !/^\d/.test(f[0]!)) continue;
    const [jobId, name, state, reason, nodes, timeLeft, start] = f as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    rows.push({
      jobId,
      name,
      state,
      reason,
      nodes,
      timeLeft,
      timeLeftS: parseSlurmDuration(timeLeft),
      startTime: slurmTime(start),
    });
  }
  return rows;
}

/** A Slurm duration (`[days-]hours:minutes:seconds`, `minutes:seconds`) in seconds; null
 *  for UNLIMITED, NOT_SET, INVALID or anything else. */
export function parseSlurmDuration(text: string): number | null {
  const m = /^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)$/.exec(text.trim());
  if (!m) return null;
  const [, d, h, min, s] = m;
  return ((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(min)) * 60 + Number(s);
}

/** A Slurm timestamp, or null for the words Slurm prints when it has none. */
export function slurmTime(text: string): string | null {
  const t = text.trim();
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(t) ? t : null;
}

/** Lists jobs over the login node's shell. Jobs Slurm no longer knows are simply absent:
 *  squeue answers "Invalid job id specified" (exit 1) when every id asked for is unknown. */
export async function listJobs(
  shell: NodeShell,
  q: SqueueQuery = {},
  signal?: AbortSignal,
): Promise<SqueueRow[]> {
  const r = await runSlurm(
    shell,
    { command: squeueCommand(q) },
    { command: 'squeue' },
    {
      ...(signal ? { signal } : {}),
      accept: (x) => q.jobIds !== undefined && /invalid job id specified/i.test(x.stderr),
    },
  );
  return r.code === 0 ? parseSqueue(r.stdout) : [];
}

function list(what: string, values: string[], form: RegExp): string {
  if (values.length === 0) throw new TenderError('bad_input', `squeue needs at least one ${what}`);
  for (const v of values)
    if (!form.test(v)) throw new TenderError('bad_input', `bad ${what} for squeue: "${v}"`);
  return shq(values.join(','));
}
