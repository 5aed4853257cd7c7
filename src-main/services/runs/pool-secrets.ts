// The secrets a run's pool names by variable (`image_login.password_env`): given with the
// run's start (`run.start` `secrets`: the CLI's --secret, the composer's typed password)
// or read from the environment of the process that drives it. Kept in this process's
// memory only — never in the ledger, a log or a receipt — so a run driven again after a
// restart reads the environment.
import type { PoolSpec } from '../../contract';
import { loginName } from '../../contract/image-login';
import { TenderError } from '../../base/tender-error';

export class PoolSecrets {
  private readonly byRun = new Map<string, Record<string, string>>();

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  remember(runId: string, given: Record<string, string> | undefined): void {
    if (given && Object.keys(given).length > 0) this.byRun.set(runId, { ...given });
  }

  /** The value of `name` for `runId`'s pool: as given at its start, else the environment. */
  lookup(runId: string, name: string): string | undefined {
    const value = this.byRun.get(runId)?.[name] ?? this.env[name];
    return value === '' ? undefined : value;
  }
}

/** Before anything is written: the pool's login password can be read. Names the variable,
 *  never a value. Returns the values the pool reads (for a notice's scrubbing). */
export function checkPoolSecrets(
  pool: PoolSpec,
  given: Record<string, string> | undefined,
  env: NodeJS.ProcessEnv,
): string[] {
  const login = pool.image_login;
  if (!login || !pool.image) return [];
  const value = given?.[login.password_env] ?? env[login.password_env];
  if (value === undefined || value === '')
    throw new TenderError(
      'bad_input',
      `image_login for ${loginName(login, pool.image)} reads $${login.password_env}, which is not set where Tender runs`,
      `export ${login.password_env} (a token that may pull ${pool.image}), or give it with --secret ${login.password_env}=@FILE; in the app, type it in the composer`,
    );
  return [value];
}
