// `--env` on the command line: plain job variables, as SkyPilot's and dstack's `--env`
// mean. A secret never comes this way (secret-input.ts says how it does).
import { TenderError } from '../base/tender-error';
import { looksLikeSecretName } from '../jobs/secrets/secret-names';
import { secretWays } from './secret-input';

/**
 * `--env NAME=VALUE`, or `--env NAME` for the value of $NAME; a later one wins. A value on
 * the line for a name that looks like a credential (`HF_TOKEN`, `…_API_KEY`) is refused:
 * it would sit in `ps` for the whole run and in the ledger as a plain variable.
 */
export function readEnvFlags(
  flags: readonly string[] = [],
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq === 0)
      throw new TenderError('bad_input', '--env takes NAME=VALUE or NAME', 'e.g. --env SEED=1');
    const name = eq < 0 ? flag : flag.slice(0, eq);
    if (eq < 0) {
      const value = env[name];
      if (value === undefined)
        throw new TenderError(
          'bad_input',
          `--env ${name}: $${name} is not set`,
          `export ${name} first, or give the value: --env ${name}=…`,
        );
      out[name] = value;
    } else if (looksLikeSecretName(name))
      throw secretOnCommandLine(name, '--env', 'looks like a secret');
    else out[name] = flag.slice(eq + 1);
  }
  return out;
}

/** The refusal of a secret's value given on the command line. */
export function secretOnCommandLine(name: string, flag: string, why: string): TenderError {
  return new TenderError(
    'bad_input',
    `${flag} ${name}=…: ${name} ${why}, and a value on the command line is readable by every process on this machine (ps) while Tender runs`,
    `pass it as a secret: ${secretWays(name)}; a variable that is not secret can be --env ${name} (reads $${name})`,
  );
}
