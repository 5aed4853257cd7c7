import { BadInputError } from '../../base/bad-input-error';
import { checkName } from '../job-file/job-file-env';
import type { JobDraft } from './draft';
import { keyPath, type Outcomes } from './key-outcomes';

/** One variable as the input wrote it; `null` when it names no value (to be given). */
export interface EnvEntry {
  name: string;
  value: string | null;
  /** Its key path in the input, for the outcome. */
  path: string;
}

/** `--env K=V` flags, repeatable; a later one wins. */
export function parseEnvFlags(flags: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq <= 0)
      throw new BadInputError(`--env takes NAME=VALUE, not "${flag}"`, {
        hint: 'e.g. --env HF_TOKEN=hf_… (an empty value is --env NAME=)',
      });
    out[flag.slice(0, eq)] = flag.slice(eq + 1);
  }
  return out;
}

/** A YAML scalar as an environment value (SkyPilot and dstack turn numbers into text). */
export function envText(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * Puts plain variables in `[job] env`, `--env` over the input's values. A variable the task
 * names with no value (`HF_TOKEN:`, dstack's bare `- HF_TOKEN`) is one to be given at
 * launch, most often a token: it becomes a secret read from the same-named variable when the
 * run starts (`tender run` names it when unset); a `--env` value for it is refused, as it is
 * for a declared secret: on a command line, every process on the machine reads it (`ps`).
 */
export function applyEnv(
  entries: EnvEntry[],
  overrides: Record<string, string>,
  draft: JobDraft,
  out: Outcomes,
  secretNames: ReadonlySet<string> = new Set(),
): void {
  const seen = new Set<string>();
  for (const e of entries) {
    seen.add(e.name);
    const bad = checkName(e.name);
    if (bad) {
      out.refused(e.path, bad.text, bad.hint ?? 'rename the variable');
      continue;
    }
    const given = overrides[e.name];
    if (e.value === null && given !== undefined) {
      out.refused(e.path, ...secretOnCommandLine(e.name, 'has no value in the task'));
    } else if (e.value === null) {
      draft.job.env[e.name] = { secret: true, from_env: e.name };
      out.warned(
        e.path,
        `no value in the task: read from $${e.name} when the run starts, as a secret (\`tender run\` names it when unset)`,
        `job.env.${e.name} = { secret = true, from_env = "${e.name}" }`,
      );
    } else if (given !== undefined) {
      draft.job.env[e.name] = given;
      out.mapped(e.path, `job.env.${e.name} (value from --env)`);
    } else {
      draft.job.env[e.name] = e.value;
      out.mapped(e.path, `job.env.${e.name}`);
    }
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (seen.has(name) || secretNames.has(name)) continue;
    const bad = checkName(name);
    if (bad) out.refused(`--env ${name}`, bad.text, bad.hint ?? 'rename the variable');
    else {
      draft.job.env[name] = value;
      out.mapped(keyPath('--env', name), `job.env.${name}`);
    }
  }
}

/** The refusal (why, fix) of a value on the command line for a variable read as a secret. */
export function secretOnCommandLine(name: string, because: string): [string, string] {
  return [
    `${name} ${because}, so it is a secret read from $${name} when the run starts; --env ${name}=… would put its value on the command line, readable by every process on this machine (ps)`,
    `leave --env ${name} out: export ${name}, or give it to tender run with --secret ${name}=@file (or --secret ${name} to be asked)`,
  ];
}
