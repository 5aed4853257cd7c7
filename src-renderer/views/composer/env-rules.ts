// The rules a tender.toml's [job] env and params are held to
// (src-main/jobs/job-file/job-file-env.ts), applied while typing: run.start takes what the
// composer sends as it is.

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The agent drops these from a job's env; TENDER_* are Tender's own. */
const RESERVED = new Set(['PATH', 'HOME', 'USER', 'SHELL']);

/** Why `name` cannot be an env variable of a job, or null. */
export function envNameProblem(name: string): string | null {
  if (!ENV_NAME.test(name))
    return `${name} is not a variable name: letters, digits and _, not starting with a digit`;
  if (RESERVED.has(name) || name.startsWith('TENDER_'))
    return `${name} is reserved: Tender sets it on the node`;
  return null;
}

/** The variable a parameter reaches the job as (the agent's mapping). */
export const paramVariable = (key: string): string =>
  `TENDER_PARAM_${key.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
