import type { KeyPath } from './toml-key-positions';

/** One thing wrong with a job file, found before it is turned into a message. */
export interface Problem {
  /** Where it is in the document; the message is placed at this key, or its closest parent. */
  path: KeyPath;
  text: string;
  hint?: string;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** `job.outputs[1]`, `job.env."my key"`: the path as a person would write it in TOML. */
export function formatKeyPath(path: KeyPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += (out ? '.' : '') + (BARE_KEY.test(part) ? part : JSON.stringify(part));
  }
  return out;
}

/** How a table is named in messages: `[job]` for a top-level table, else its dotted path. */
export function tableLabel(path: KeyPath): string {
  if (path.length === 0) return 'the top level';
  return path.length === 1 ? `[${formatKeyPath(path)}]` : formatKeyPath(path);
}

/** The TOML type of a parsed value, with its article: "an integer", "a table". */
export function describeTomlValue(value: unknown): string {
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'boolean') return 'a boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a float';
  if (typeof value === 'bigint') return 'an integer';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date-time';
  if (value === undefined) return 'missing';
  return 'a table';
}

export function isTable(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}

/** The value at `path` in a parsed document, or undefined. */
export function valueAt(root: unknown, path: KeyPath): unknown {
  let v = root;
  for (const part of path) {
    if (Array.isArray(v) && typeof part === 'number') v = v[part];
    else if (isTable(v) && typeof part === 'string') v = v[part];
    else return undefined;
  }
  return v;
}
