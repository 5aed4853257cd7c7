import { ProviderError } from '../provider';

/** What went wrong with a Slurm command, as far as its words tell:
 *  - `bad_partition`: the cluster has no such partition;
 *  - `bad_account`: the account may not be charged (or not on that partition);
 *  - `bad_qos`: the QOS does not exist or the account may not use it;
 *  - `no_sbatch`: Slurm's commands are not on the PATH of a non-interactive ssh session;
 *  - `refused`: Slurm refused the request itself (a time limit, size or GPU count the
 *    partition never allows, a bad option);
 *  - `other`: anything else — often passing (the controller did not answer). */
export type SlurmErrorKind =
  'bad_partition' | 'bad_account' | 'bad_qos' | 'no_sbatch' | 'refused' | 'other';

/** A Slurm command that failed. A `ProviderError` (so it travels as data with its hint);
 *  fatal unless `other`: resubmitting the same request gets the same answer. `said` keeps
 *  Slurm's own words, without the `sbatch: error:` prefixes. */
export class SlurmError extends ProviderError {
  constructor(
    readonly kind: SlurmErrorKind,
    message: string,
    readonly said: string,
    hint: string,
  ) {
    super(message, { fatal: kind !== 'other', hint });
    this.name = 'SlurmError';
  }
}

/** What the failed command was asked, for the message. */
export interface SlurmErrorContext {
  /** `sbatch`, `squeue`, `scontrol`, `scancel`. */
  command: string;
  /** Where the command ran (`user@login:22`), when known. */
  where?: string;
  partition?: string;
  account?: string;
  qos?: string;
}

/** A failed command's exit and output. */
export interface FailedRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Rules, first match wins, tried against Slurm's words (stderr, then stdout). The texts
 *  are Slurm 22.05's (`slurm_errno.c` and sbatch's own checks); each is in
 *  slurm-error.test.ts as the cluster printed it. */
const RULES: { kind: SlurmErrorKind; test: RegExp }[] = [
  { kind: 'bad_partition', test: /invalid partition (name )?specified/i },
  { kind: 'bad_account', test: /invalid account|account\/partition combination/i },
  { kind: 'bad_qos', test: /invalid qos/i },
  // Passing: the controller, munge or the database did not answer; a conf not readable.
  {
    kind: 'other',
    test: /unable to contact slurm controller|socket timed out|zero bytes were transmitted|connection refused|problem talking to (the )?database|temporarily unavailable|slurm temporarily unable|unable to process configuration file|munge/i,
  },
  {
    kind: 'refused',
    test: /batch job submission failed|invalid .* specification|does not look like a batch script|unrecognized option|invalid option|access\/permission denied|not permitted/i,
  },
];

/** Turns a failed Slurm command into a `SlurmError` whose message says what happened and
 *  whose hint says what to change. */
export function slurmError(run: FailedRun, ctx: SlurmErrorContext): SlurmError {
  const words = slurmWords(run.stderr) || slurmWords(run.stdout);
  const where = ctx.where ? ` on ${ctx.where}` : '';
  if (isNotFound(run, ctx.command)) {
    return new SlurmError(
      'no_sbatch',
      `${ctx.command} is not on the PATH of a non-interactive ssh session${where}`,
      words,
      'Tender runs Slurm commands over ssh without a terminal. If Slurm comes from a module, ' +
        'load it in ~/.bashrc above any line that returns early for non-interactive shells ' +
        '(or set PATH in ~/.ssh/environment where sshd allows it); `ssh <login> which sbatch` ' +
        'must print a path.',
    );
  }
  const kind = RULES.find((r) => r.test.test(words))?.kind ?? 'other';
  const said = words || `exit ${run.code ?? 'signal'}, no message`;
  switch (kind) {
    case 'bad_partition': {
      const name = ctx.partition ?? /invalid partition specified: (\S+)/i.exec(words)?.[1];
      return new SlurmError(
        kind,
        `the cluster has no partition ${name ? `"${name}"` : 'by that name'} (Slurm: ${said})`,
        words,
        "pick one that `sinfo -s` lists on the login node, or leave the partition out for the cluster's default",
      );
    }
    case 'bad_account':
      return new SlurmError(
        kind,
        `Slurm refused the account ${ctx.account ? `"${ctx.account}"` : '(your default)'}` +
          `${ctx.partition ? ` on partition "${ctx.partition}"` : ''} (Slurm: ${said})`,
        words,
        'use an account you may charge on that partition: `sacctmgr show assoc user=$USER ' +
          'format=account,partition` lists them; partitions with AllowAccounts take only those',
      );
    case 'bad_qos':
      return new SlurmError(
        kind,
        `Slurm refused the QOS ${ctx.qos ? `"${ctx.qos}"` : '(your default)'} (Slurm: ${said})`,
        words,
        'use a QOS your account may use (`sacctmgr show assoc user=$USER format=account,qos`), ' +
          "or leave it out for the account's default",
      );
    case 'refused':
      return new SlurmError(
        kind,
        `Slurm refused the job${where}: ${said}`,
        words,
        'change the request to fit the partition: `scontrol show partition <name>` shows its ' +
          'time limit (MaxTime), nodes and who may use it; GPUs need the cluster to offer gres gpu',
      );
    default:
      return new SlurmError(
        'other',
        `${ctx.command} failed${where}: ${said}`,
        words,
        /configuration file/i.test(words)
          ? "Slurm's configuration could not be read in an ssh session: is SLURM_CONF set for non-interactive logins?"
          : 'if the controller was restarting this passes; `sinfo` on the login node shows whether Slurm answers',
      );
  }
}

/** Slurm's message lines, prefixes (`sbatch: error: `, `slurm_load_jobs error: `) dropped,
 *  joined into one line. */
export function slurmWords(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => l.replace(/^[\w-]+:\s+(error|fatal):\s*/i, '').replace(/^\w+ error:\s*/i, ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .slice(0, 400);
}

function isNotFound(run: FailedRun, command: string): boolean {
  if (run.code !== 127) return false;
  return new RegExp(`${command}: (command )?not found|${command}: No such file`, 'i').test(
    `${run.stderr}\n${run.stdout}`,
  );
}
