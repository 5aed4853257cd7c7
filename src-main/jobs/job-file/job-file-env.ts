import type { JobSpec } from '../../contract/job';
import type { JobTable } from './job-file-schema';
import { formatKeyPath, type Problem } from './job-file-problem';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The agent drops these from a job's env (docs/agent-protocol.md); refuse them up front. */
const RESERVED_NAMES = new Set(['PATH', 'HOME', 'USER', 'SHELL']);
const RESERVED_PREFIX = 'TENDER_';

/**
 * Checks env names and turns secret references into values. A `from_env` secret is read
 * from `processEnv` here, once, so the JobSpec carries the value the person approved and a
 * missing variable is reported now rather than as a confusing failure on a billed node.
 * Messages name variables, never values.
 */
export function resolveEnv(
  entries: JobTable['env'],
  processEnv: NodeJS.ProcessEnv,
): { env: JobSpec['env']; problems: Problem[] } {
  const env: JobSpec['env'] = {};
  const problems: Problem[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const path = ['job', 'env', name];
    const label = formatKeyPath(path);
    const nameProblem = checkName(name);
    if (nameProblem) {
      problems.push({ path, ...nameProblem });
      continue;
    }
    if (typeof entry === 'string') {
      env[name] = entry;
    } else if (entry.value !== undefined && entry.from_env !== undefined) {
      problems.push({
        path,
        text: `${label} has both value and from_env; keep one`,
      });
    } else if (entry.from_env !== undefined) {
      const value = processEnv[entry.from_env];
      if (value === undefined || value === '') {
        problems.push({
          path: [...path, 'from_env'],
          text: `${label}: environment variable ${entry.from_env} is not set`,
          hint: `set ${entry.from_env} in the environment Tender starts from, or give the secret as value = "…"`,
        });
      } else env[name] = { secret: true, value };
    } else if (entry.value !== undefined) {
      env[name] = { secret: true, value: entry.value };
    } else {
      problems.push({
        path,
        text: `${label} is a secret with no source; add from_env = "VAR" or value = "…"`,
      });
    }
  }
  return { env, problems };
}

/** Why `name` cannot be a job env variable, or undefined when it can. */
export function checkName(name: string): Omit<Problem, 'path'> | undefined {
  if (!ENV_NAME.test(name)) {
    return {
      text: `env name "${name}" is not a valid variable name`,
      hint: 'use letters, digits and _, not starting with a digit',
    };
  }
  if (RESERVED_NAMES.has(name) || name.startsWith(RESERVED_PREFIX)) {
    return {
      text: `env name "${name}" is reserved: Tender sets it on the node`,
      hint: 'pick another name; for parameters use [job] params, exposed as TENDER_PARAM_<KEY>',
    };
  }
  return undefined;
}

/** The agent's mapping (docs/agent-protocol.md): upper-cased, non-alphanumerics to `_`. */
export const paramVariable = (key: string): string =>
  `TENDER_PARAM_${key.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

/** Two params that become the same variable would silently overwrite each other. */
export function checkParams(params: Record<string, string>): Problem[] {
  const seen = new Map<string, string>();
  const problems: Problem[] = [];
  for (const key of Object.keys(params)) {
    const variable = paramVariable(key);
    const first = seen.get(variable);
    if (key === '') {
      problems.push({ path: ['job', 'params', key], text: 'a params key must not be empty' });
    } else if (first !== undefined) {
      problems.push({
        path: ['job', 'params', key],
        text: `params "${first}" and "${key}" both become ${variable}; rename one`,
      });
    } else seen.set(variable, key);
  }
  return problems;
}
