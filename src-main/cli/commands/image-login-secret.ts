// Where `tender run` finds the password of the pool's registry login: `--secret NAME` (a
// file, or a prompt) under the variable the login names, else that variable in the
// environment (which the core reads itself), else a hidden prompt on a terminal. Never a
// flag's value, never printed.
import type { PoolSpec } from '../../contract';
import { loginName } from '../../contract/image-login';
import { TenderError } from '../../base/tender-error';
import { terminalPrompt } from '../hidden-prompt';
import { secretWays } from '../secret-input';

/** The `secrets` a run start carries for its pool: the login's password when it was given
 *  here (a --secret or a prompt); empty when the environment has it or there is no login. */
export async function imageLoginSecret(
  pool: PoolSpec,
  given: Record<string, string>,
  env: NodeJS.ProcessEnv,
  prompt = terminalPrompt(),
): Promise<Record<string, string>> {
  const login = pool.image_login;
  if (!login || !pool.image) return {};
  const name = login.password_env;
  if (given[name] !== undefined) return { [name]: given[name] };
  if (env[name]) return {};
  if (!prompt)
    throw new TenderError(
      'bad_input',
      `image_login for ${loginName(login, pool.image)} reads $${name}, which is not set, and there is no terminal to ask on`,
      secretWays(name),
    );
  const value = await prompt(`${name} (password for ${loginName(login, pool.image)})`);
  if (value === '') throw new TenderError('bad_input', `${name}: no password given`);
  return { [name]: value };
}
