import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parse } from 'smol-toml';
import { BadInputError } from '../../base/bad-input-error';
import type { PoolSpec } from '../../contract/job';
import { parseJobToml, type LoadedJobFile } from '../job-file/job-file';
import { convertTask, refusalError, type Conversion } from './convert';
import { looksLikeTask } from './detect';
import { readYamlDocuments } from './yaml-read';

const YAML_NAME = /\.ya?ml$/i;

/**
 * Whether a job file argument is a SkyPilot or dstack YAML rather than a tender.toml: by
 * its name (`.yaml`, `.yml`, `.dstack.yml`), or, for a name that says neither, by content
 * that is not TOML but reads as a task.
 */
export function isTaskFile(file: string): boolean {
  if (YAML_NAME.test(file)) return true;
  if (/\.toml$/i.test(file)) return false;
  let text: string;
  try {
    if (!statSync(file).isFile()) return false;
    text = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  try {
    parse(text);
    return false;
  } catch {
    try {
      return looksLikeTask(readYamlDocuments(text, file)[0]);
    } catch {
      return false;
    }
  }
}

export interface TaskLoadOptions {
  knownProviders: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** `--env K=V`: plain variables. */
  envFlags?: Record<string, string>;
  /** The command line's pool flags, laid over the converted `[pool]` before its checks. */
  poolFlags?: (pool: PoolSpec) => PoolSpec;
  cwd?: string;
  home?: string;
}

export interface LoadedTask extends LoadedJobFile {
  conversion: Conversion;
}

export function readTaskText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BadInputError(`no such file: ${file}`, { file, cause: err });
    throw new BadInputError(`cannot read ${file}: ${code ?? String(err)}`, { file, cause: err });
  }
}

/**
 * Converts a task and loads the job file text through `parseJobToml`, as a tender.toml
 * beside the YAML would be. Secrets come from the environment, then the YAML's own values.
 */
export function loadTaskFile(jobFile: string, opts: TaskLoadOptions): LoadedTask {
  const file = path.resolve(jobFile);
  const conversion = convertTaskFile(file, readTaskText(file), path.dirname(file), opts);
  const env = { ...conversion.secretDefaults, ...(opts.env ?? process.env), ...opts.envFlags };
  const missing = missingAtLaunch(conversion.secretNames, env);
  if (missing.length > 0) throw missingError(file, missing);
  const loaded = parseJobToml(conversion.toml!, {
    file: `${file} (as converted; tender import ${path.basename(file)} shows it)`,
    baseDir: path.dirname(file),
    knownProviders: opts.knownProviders,
    env,
    ...(opts.poolFlags ? { poolFlags: opts.poolFlags } : {}),
  });
  return { ...loaded, file, conversion };
}

/** The conversion, thrown as bad input when a key was refused. */
export function convertTaskFile(
  file: string,
  text: string,
  outDir: string,
  opts: Pick<TaskLoadOptions, 'envFlags' | 'cwd' | 'home'>,
): Conversion {
  const conversion = convertTask(text, {
    file,
    yamlDir: path.dirname(file),
    cwd: opts.cwd ?? process.cwd(),
    home: opts.home ?? homedir(),
    outDir,
    env: opts.envFlags ?? {},
  });
  if (conversion.toml === null) throw refusalError(conversion, file);
  return conversion;
}

/** The task's secrets and value-less variables that nothing gives at launch (an empty
 *  variable is not given: the job would read nothing). */
export function missingAtLaunch(names: readonly string[], env: NodeJS.ProcessEnv): string[] {
  return names.filter((n) => !env[n]);
}

function missingError(file: string, names: string[]): BadInputError {
  const list = names.join(', ');
  const verb =
    names.length > 1 ? 'have no value in the task and are' : 'has no value in the task and is';
  return new BadInputError(`${file}: ${list} ${verb} not set in the environment`, {
    file,
    hint: `export ${names.map((n) => `${n}=…`).join(' ')} before tender run, or give ${names.length > 1 ? 'them' : 'it'} from a file: ${names.map((n) => `--secret ${n}=@path`).join(' ')} (--secret ${names[0]} alone asks on a terminal)`,
  });
}
