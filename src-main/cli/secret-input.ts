// Where a secret given to the CLI comes from: the environment, a file, or a prompt; never
// the command line, which every user of the machine reads in `ps` (/proc/<pid>/cmdline)
// for as long as the command runs. Messages name variables and files, never values.
import { readFileSync } from 'node:fs';
import { TenderError } from '../base/tender-error';
import { checkName } from '../jobs/job-file/job-file-env';

export interface SecretSources {
  env: NodeJS.ProcessEnv;
  readFile?: (path: string) => string;
  /** Asks for a value without echo; absent when there is no terminal to ask on. */
  prompt?: (name: string) => Promise<string>;
}

/** The ways to give a secret, for every refusal. */
export const secretWays = (name: string): string =>
  `give it from the environment (--secret ${name} reads $${name}), from a file ` +
  `(--secret ${name}=@path, or NAME=VALUE lines in --secret-file FILE), or leave $${name} ` +
  'unset in a terminal to be asked';

/**
 * `--secret NAME` (from $NAME, else a prompt), `--secret NAME=@path` (the file's text, one
 * trailing newline dropped) and `--secret-file FILE` (NAME=VALUE lines); a later one wins.
 * `--secret NAME=VALUE` is refused: the value would sit in the process table.
 */
export async function readSecretFlags(
  flags: readonly string[],
  files: readonly string[],
  src: SecretSources,
): Promise<Record<string, string>> {
  const read = src.readFile ?? ((p: string) => readFileSync(p, 'utf8'));
  const out: Record<string, string> = {};
  for (const file of files) Object.assign(out, parseSecretFile(readText(file, read), file));
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    const name = eq < 0 ? flag : flag.slice(0, eq);
    checkSecretName(name, '--secret');
    if (eq < 0) out[name] = await fromEnvOrPrompt(name, src);
    else if (flag[eq + 1] === '@') out[name] = fileValue(name, flag.slice(eq + 2), read);
    else
      throw new TenderError(
        'bad_input',
        `--secret ${name}=…: a secret's value on the command line is readable by every process on this machine (ps) while Tender runs`,
        secretWays(name),
      );
  }
  return out;
}

async function fromEnvOrPrompt(name: string, src: SecretSources): Promise<string> {
  const value = src.env[name];
  if (value !== undefined && value !== '') return value;
  if (!src.prompt)
    throw new TenderError(
      'bad_input',
      `--secret ${name}: $${name} is not set, and there is no terminal to ask on`,
      `export ${name} first, or give it from a file: --secret ${name}=@path`,
    );
  const asked = await src.prompt(name);
  if (asked === '') throw new TenderError('bad_input', `--secret ${name}: no value given`);
  return asked;
}

function fileValue(name: string, file: string, read: (p: string) => string): string {
  if (file === '')
    throw new TenderError('bad_input', `--secret ${name}=@ names no file`, secretWays(name));
  const value = readText(file, read).replace(/\r?\n$/, '');
  if (value === '')
    throw new TenderError('bad_input', `--secret ${name}=@${file}: the file is empty`);
  return value;
}

function readText(file: string, read: (p: string) => string): string {
  try {
    return read(file);
  } catch (err) {
    throw new TenderError(
      'bad_input',
      `cannot read the secret file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
}

/** NAME=VALUE lines; blank lines, `# comments` and an `export ` prefix are allowed; a value
 *  in matching quotes loses them. A bad line is named by its number, never its text. */
export function parseSecretFile(text: string, file: string): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(?:export\s+)?([^=\s]+)\s*=(.*)$/.exec(line);
    if (!m)
      throw new TenderError(
        'bad_input',
        `${file}:${i + 1}: not a NAME=VALUE line`,
        'a secret file holds one NAME=VALUE per line (blank lines and # comments are allowed)',
      );
    checkSecretName(m[1]!, `${file}:${i + 1}`);
    const v = m[2]!.trim();
    out[m[1]!] = /^(["']).*\1$/.test(v) && v.length >= 2 ? v.slice(1, -1) : v;
  });
  return out;
}

function checkSecretName(name: string, where: string): void {
  const bad = checkName(name);
  if (bad) throw new TenderError('bad_input', `${where}: ${bad.text}`, bad.hint);
}
