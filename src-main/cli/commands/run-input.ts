// What `tender run` is given to run: a job file or a task, with `--env` and `--secret`
// laid over it.
import { TenderError } from '../../base/tender-error';
import type { PoolSpec } from '../../contract';
import { isTaskFile, loadTaskFile } from '../../jobs/import/load-task';
import { loadJobFile, type LoadedJobFile } from '../../jobs/job-file/job-file';
import { checkName } from '../../jobs/job-file/job-file-env';
import { KNOWN_PROVIDERS } from '../../providers/known';
import type { CliContext } from '../context';
import { info } from '../output';
import { secretWays } from '../secret-input';
import { pushConsentProblems } from '../../jobs/workspace/push-consent';
import { scanWorkspace } from '../../jobs/workspace/scan';
import path from 'node:path';

/** A tender.toml, or a SkyPilot/dstack task converted on the way (its warnings printed).
 *  `--env` sets a plain job variable over the file's; `--secret` a secret one, which also
 *  answers a `from_env` of its name. A variable the job or task calls secret is refused on
 *  `--env`. */
export function loadJobOrTask(
  file: string,
  ctx: CliContext,
  given: {
    /** `--env`: plain variables. */
    plain: Record<string, string>;
    /** `--secret`: secret variables, by name. */
    secrets: Record<string, string>;
    /** The command line's pool flags, laid over the file's `[pool]` before its checks. */
    poolFlags: (pool: PoolSpec) => PoolSpec;
  },
): LoadedJobFile {
  const { plain, secrets } = given;
  for (const name of Object.keys(plain))
    if (name in secrets)
      throw new TenderError(
        'bad_input',
        `${name} is given both by --env and by --secret`,
        'keep one: --secret when it is a secret',
      );
  const env = { ...ctx.env, ...secrets };
  let loaded: LoadedJobFile;
  if (isTaskFile(file)) {
    const task = loadTaskFile(file, {
      knownProviders: KNOWN_PROVIDERS,
      env,
      envFlags: plain,
      poolFlags: given.poolFlags,
    });
    for (const o of task.conversion.outcomes)
      if (o.kind === 'warned')
        info(`${file}: ${o.path}: ${o.to ? `→ ${o.to}; ` : 'left out: '}${o.why}`);
    loaded = task;
  } else {
    loaded = loadJobFile(file, {
      knownProviders: KNOWN_PROVIDERS,
      env,
      poolFlags: given.poolFlags,
    });
    for (const [name, value] of Object.entries(plain)) {
      const bad = checkName(name);
      if (bad) throw new TenderError('bad_input', `--env ${name}: ${bad.text}`, bad.hint);
      const declared = loaded.job.env[name];
      if (declared !== undefined && typeof declared !== 'string')
        throw new TenderError(
          'bad_input',
          `--env ${name}: ${name} is a secret in ${loaded.file}; --env passes plain variables (kept in the ledger; a value on the command line is in ps)`,
          `pass it as a secret: ${secretWays(name)}`,
        );
      loaded.job.env[name] = value;
    }
  }
  // The registry password the pool reads goes to the provider only, not into the job's env
  // (and so to the node), unless the job's env names it too.
  const loginVar = loaded.pool.image_login?.password_env;
  for (const [name, value] of Object.entries(secrets))
    if (name !== loginVar || name in loaded.job.env) loaded.job.env[name] = { secret: true, value };
  return loaded;
}

/** Refuses a push of likely secrets, or of a workdir outside the job file's folder, that
 *  neither the job file nor a flag chose knowingly (jobs/workspace/push-consent.ts). */
export async function checkPushConsent(
  loaded: LoadedJobFile,
  flags: { pushSecrets: boolean; workdirOutside: boolean },
): Promise<void> {
  const ws = loaded.job.workspace;
  if (!ws) return;
  const fromFile = loaded.workspaceChoices ?? { pushSecrets: false, workdirOutside: false };
  const choices = {
    pushSecrets: flags.pushSecrets || fromFile.pushSecrets,
    workdirOutside: flags.workdirOutside || fromFile.workdirOutside,
  };
  const scan = choices.pushSecrets ? null : await scanWorkspace(ws.workdir, ws.exclude);
  const problems = pushConsentProblems(
    { workdir: ws.workdir, jobDir: path.dirname(loaded.file), secrets: scan?.secrets ?? [] },
    choices,
  );
  if (problems.length === 0) return;
  const [first, ...rest] = problems;
  for (const p of rest) info(`${p.text}\n  hint: ${p.hint}`);
  throw new TenderError('bad_input', first!.text, first!.hint);
}
