import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'smol-toml';
import type { Handlers, JobSpec } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { JOB_FILE_NAME, parseJobToml } from '../../jobs/job-file/job-file';
import { KNOWN_PROVIDERS } from '../../providers/known';
import { convertTaskFile, isTaskFile } from '../../jobs/import/load-task';

/** What only a desktop shell can do. */
export interface PickFolder {
  pickFolder?: () => Promise<string | null>;
}

/** The composer's job files: parse text, load a tender.toml, pick a workspace folder. */
export function jobFileHandlers(
  core: PickFolder,
): Pick<Handlers, 'job.parse' | 'job.load' | 'app.pickFolder'> {
  return {
    'job.parse': async ({ text, baseDir, file }) => parseForUi(text, baseDir, file),
    'job.load': async ({ path }) => {
      const file = jobFileAt(path);
      const text = readFileSync(file, 'utf8');
      // A SkyPilot or dstack task loads as the job file `tender import` would write beside it;
      // a relative workdir is the task file's folder's (the app has no folder of a shell).
      const toml = isTaskFile(file)
        ? convertTaskFile(file, text, dirname(file), { cwd: dirname(file) }).toml!
        : text;
      return { ...parseForUi(toml, dirname(file), file), file };
    },
    'app.pickFolder': async () => {
      if (!core.pickFolder) {
        throw new TenderError(
          'conflict',
          'no folder picker in web mode',
          'type or paste the folder path instead',
        );
      }
      return { path: await core.pickFolder() };
    },
  };
}

/** Parses a tender.toml for the composer. `from_env` secrets stay references, resolved only
 *  when the run starts, in the process that runs Tender: their values never reach a UI. */
function parseForUi(
  text: string,
  baseDir: string,
  file: string | undefined,
): Omit<ReturnType<typeof parseJobToml>, 'file'> {
  const fromEnv = fromEnvNames(text);
  const placeholders: NodeJS.ProcessEnv = {};
  for (const name of Object.values(fromEnv)) placeholders[name] = 'placeholder';
  const loaded = parseJobToml(text, {
    file: file ?? 'tender.toml',
    baseDir,
    knownProviders: KNOWN_PROVIDERS,
    env: placeholders,
  });
  const env: JobSpec['env'] = {};
  for (const [key, value] of Object.entries(loaded.job.env)) {
    env[key] = fromEnv[key] ? { secret: true, fromEnv: fromEnv[key] } : value;
  }
  return { job: { ...loaded.job, env }, pool: loaded.pool, policy: loaded.policy };
}

/** The tender.toml a path names: the file itself, or the one in a folder. Paths are on the
 *  machine running Tender; `~/` is its user's home. */
function jobFileAt(given: string): string {
  const path = given.startsWith('~/') ? join(homedir(), given.slice(2)) : given;
  if (!isAbsolute(path)) {
    throw new TenderError(
      'bad_input',
      `${given} is not an absolute path`,
      'give the full path of the folder or its tender.toml',
    );
  }
  if (!existsSync(path)) throw new TenderError('not_found', `no such file or folder: ${path}`);
  const file = statSync(path).isDirectory() ? join(path, JOB_FILE_NAME) : path;
  if (!existsSync(file)) throw new TenderError('not_found', `no ${JOB_FILE_NAME} in ${path}`);
  const st = statSync(file);
  if (!st.isFile() || st.size > MAX_JOB_FILE_BYTES) {
    throw new TenderError(
      'bad_input',
      `${file} is not a job file`,
      `a tender.toml is a text file under ${MAX_JOB_FILE_BYTES / 1_000_000} MB`,
    );
  }
  return file;
}

const MAX_JOB_FILE_BYTES = 1_000_000; // the same cap as job.parse's text

function fromEnvNames(text: string): Record<string, string> {
  try {
    const doc = parse(text) as { job?: { env?: Record<string, unknown> } };
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(doc.job?.env ?? {})) {
      const ref = (v as { from_env?: unknown } | null)?.from_env;
      if (typeof ref === 'string') out[k] = ref;
    }
    return out;
  } catch {
    return {}; // parseJobToml reports the syntax error with its position
  }
}
