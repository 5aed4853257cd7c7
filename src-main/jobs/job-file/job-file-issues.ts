import type { z } from 'zod';
import {
  describeTomlValue,
  formatKeyPath,
  isTable,
  tableLabel,
  valueAt,
  type Problem,
} from './job-file-problem';
import type { KeyPath } from './toml-key-positions';

/** What a missing required key is for, so the message can show a line to add. */
const MISSING_HINTS: Record<string, string> = {
  'job.name': 'add name = "my-job" under [job]; it names the job in lists and logs',
  'job.run': 'add run = "…" under [job]: the command Tender runs in the workspace',
  job: 'a job file needs a [job] table with at least name = "…" and run = "…"',
};

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'a table',
  record: 'a table',
};

const HOST_SETUP_HINT =
  'host_setup is a list of commands run in order: host_setup = ["apt-get install -y ffmpeg"], or { script = "…", refresh_capabilities = true } for an entry';

const SECRET_SHAPE = '{ secret = true, from_env = "VAR" } or { secret = true, value = "…" }';

/** Turns zod's issues about the parsed document into problems phrased in TOML terms. */
export function problemsFromIssues(doc: unknown, issues: readonly z.core.$ZodIssue[]): Problem[] {
  return issues.flatMap((issue) => fromIssue(doc, issue, []));
}

function fromIssue(doc: unknown, issue: z.core.$ZodIssue, base: KeyPath): Problem[] {
  const path: KeyPath = [...base, ...(issue.path as (string | number)[])];
  const name = formatKeyPath(path);
  const value = valueAt(doc, path);
  switch (issue.code) {
    case 'invalid_type': {
      if (value === undefined) return [missing(path)];
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      const problem: Problem = {
        path,
        text: `${name} must be ${expected}, not ${describeTomlValue(value)}`,
      };
      if (issue.expected === 'string' && isScalar(value)) problem.hint = quoteHint(path, value);
      if (name === 'job.host_setup') problem.hint = HOST_SETUP_HINT;
      return [problem];
    }
    case 'too_small':
      if (issue.origin === 'string') {
        const hint = name === 'job.setup' ? 'remove the line to skip setup' : undefined;
        return [{ path, text: `${name} must not be empty`, hint }];
      }
      if (issue.origin === 'array') return [{ path, text: `${name} must not be empty` }];
      return [
        {
          path,
          text: `${name} must be ${issue.inclusive === false ? 'above' : 'at least'} ${String(issue.minimum)}`,
        },
      ];
    case 'too_big': {
      const unit = issue.origin === 'string' ? ' characters' : '';
      return [{ path, text: `${name} must be at most ${String(issue.maximum)}${unit}` }];
    }
    case 'invalid_value':
      if (path.at(-1) === 'secret') {
        return [
          {
            path,
            text: `${name} must be true`,
            hint: `for a plain value write ${String(path.at(-2))} = "…"`,
          },
        ];
      }
      return [{ path, text: `${name} must be one of ${issue.values.map(String).join(', ')}` }];
    case 'invalid_union':
      // The unions of a job file: an env value (a string, or a secret table) and a
      // host_setup entry (a string, or a { script = "…" } table).
      if (isTable(value)) {
        const tableBranch = issue.errors.find((errs) => !errs.some((e) => isRootTypeIssue(e)));
        if (tableBranch) return tableBranch.flatMap((e) => fromIssue(doc, e, path));
      }
      if (path[0] === 'job' && path[1] === 'host_setup') {
        return [
          {
            path,
            text: `${name} must be a command string or a { script = "…" } table, not ${describeTomlValue(value)}`,
            hint: isScalar(value) ? quoteHint(path, value) : HOST_SETUP_HINT,
          },
        ];
      }
      if (isScalar(value)) {
        return [
          {
            path,
            text: `${name} must be a string, not ${describeTomlValue(value)}`,
            hint: quoteHint(path, value),
          },
        ];
      }
      return [
        {
          path,
          text: `${name} must be a string or a secret table, not ${describeTomlValue(value)}`,
          hint: `write ${String(path.at(-1))} = "…" or ${SECRET_SHAPE}`,
        },
      ];
    case 'unrecognized_keys':
      // Reported earlier with positions and suggestions; kept as a safety net.
      return issue.keys.map((key) => ({
        path: [...path, key],
        text: `unknown key "${key}" in ${tableLabel(path)}`,
      }));
    default:
      return [{ path, text: `${name}: ${issue.message}` }];
  }
}

function missing(path: KeyPath): Problem {
  const key = formatKeyPath(path);
  if (path.length === 1) return { path, text: `missing [${key}] table`, hint: MISSING_HINTS[key] };
  return {
    path,
    text: `${tableLabel(path.slice(0, -1))} is missing "${String(path.at(-1))}"`,
    hint: MISSING_HINTS[key],
  };
}

/** Shows the fixed line, except inside a secret table, whose value is never echoed. */
function quoteHint(path: KeyPath, value: unknown): string {
  const key = String(path.at(-1));
  const isInSecret = path[0] === 'job' && path[1] === 'env' && path.length > 3;
  if (isInSecret) return `put the value in quotes: ${key} = "…"`;
  // An array entry (`outputs = ["a", 2]`): its index is no key to write.
  if (typeof path.at(-1) === 'number') return `quote the entry: "${String(value)}"`;
  return `quote it: ${key} = "${String(value)}"`;
}

function isScalar(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint';
}

function isRootTypeIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'invalid_type' && issue.path.length === 0;
}
