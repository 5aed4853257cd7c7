// What `run.rerun` and `rerun --receipt` start: an earlier run's job and pool (or a
// receipt's one job), with the secrets Tender does not keep given again by name.
import { PoolSpec, type CommandArgs, type JobSpec, type SweepCell } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { REDACTED } from '../../jobs/secrets/redact-job';
import type { Ledger } from '../../ledger/ledger';
import type { RunRow } from '../../ledger/rows';
import { receiptJob, receiptRun } from './receipt-rerun';

/** One run start, as every start command becomes it (services/runs/run-start.ts). */
export interface RunStartRequest {
  args: CommandArgs<'run.start'>;
  /** A sweep's cells as given (a rerun of the failed ones keeps their ids); default: the
   *  job's `[sweep]` expanded. */
  cells?: SweepCell[];
  /** Secret values given by name beside a stored job (`--secret K`). */
  given?: Record<string, string>;
}

type RerunLedger = Pick<Ledger, 'getRun' | 'jobSpec' | 'listCells' | 'installId'>;

/** The job and pool of an earlier run again (warm nodes first); `failed`: only the cells of
 *  a sweep that failed or were cancelled. */
export function rerunRequest(ledger: RerunLedger, args: CommandArgs<'run.rerun'>): RunStartRequest {
  const run = ledger.getRun(args.runId);
  if (!run)
    throw new TenderError(
      'not_found',
      `no run ${args.runId}`,
      'See `tender status` for the runs Tender knows.',
    );
  const cells = args.failed ? failedCells(ledger, run.id) : undefined;
  return {
    args: againArgs(run, withSecrets(ledger.jobSpec(run.jobId), args.secrets, run.id), args),
    given: args.secrets,
    ...(cells ? { cells } : {}),
  };
}

/** A receipt's job again, as one job on one node of its run's pool. */
export function receiptRequest(
  ledger: RerunLedger,
  args: CommandArgs<'run.fromReceipt'>,
): RunStartRequest {
  const run = receiptRun(ledger, args.receipt);
  const stored = withSecrets(ledger.jobSpec(run.jobId), args.secrets, run.id);
  const again = againArgs(run, receiptJob(stored, args.receipt), args);
  return { args: { ...again, pool: { ...again.pool, count: 1 } }, given: args.secrets };
}

function againArgs(
  run: RunRow,
  job: JobSpec,
  args: {
    freshSetup: boolean;
    reuseWarm: boolean;
    origin?: string | undefined;
    secrets?: Record<string, string>;
  },
): CommandArgs<'run.start'> {
  return {
    job,
    pool: PoolSpec.parse(run.pool),
    keep: run.keep,
    policy: run.policy ?? {},
    source: run.source ?? undefined,
    freshSetup: args.freshSetup,
    reuseWarm: args.reuseWarm,
    // Who starts this run, not who started the earlier one.
    ...(args.origin !== undefined ? { origin: args.origin } : {}),
    // The pool's own secrets (its image's login) are read from these by name too.
    secrets: args.secrets ?? {},
  };
}

/** A sweep's cells that failed or were cancelled, with their ids and values. */
function failedCells(ledger: Pick<Ledger, 'listCells'>, runId: string): SweepCell[] {
  const all = ledger.listCells(runId);
  if (all.length === 0)
    throw new TenderError(
      'bad_input',
      `run ${runId} is no sweep: --failed reruns a sweep's failed cells`,
      `rerun it whole: \`tender rerun ${runId}\``,
    );
  const failed = all.filter((c) => c.status === 'failed' || c.status === 'cancelled');
  if (failed.length === 0)
    throw new TenderError(
      'conflict',
      `every cell of run ${runId} ${all.some((c) => c.status === 'queued' || c.status === 'running') ? 'that has ended ' : ''}completed: none to rerun`,
      `rerun it whole: \`tender rerun ${runId}\``,
    );
  return failed.map((c) => ({ index: c.index, id: c.id, values: c.values }));
}

/** The stored job (secrets redacted) with its secrets given again by name. */
function withSecrets(job: JobSpec, secrets: Record<string, string>, runId: string): JobSpec {
  const env: JobSpec['env'] = {};
  for (const [name, value] of Object.entries(job.env)) {
    if (typeof value === 'string' || !('value' in value) || value.value !== REDACTED) {
      env[name] = value;
      continue;
    }
    const given = secrets[name];
    if (given === undefined)
      throw new TenderError(
        'bad_input',
        `run ${runId} had the secret ${name}, which Tender does not keep`,
        `rerun it from its job file (\`tender rerun\` reads secrets from it when it is still there), or give it again (\`--secret ${name}\` reads $${name}, \`--secret ${name}=@file\` a file)`,
      );
    env[name] = { secret: true, value: given };
  }
  return { ...job, env };
}
