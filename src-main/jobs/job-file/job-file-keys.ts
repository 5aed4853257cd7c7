import {
  GPU_IDLE_KEYS,
  JOB_KEYS,
  POLICY_KEYS,
  POOL_KEYS,
  RECOVERY_KEYS,
  SECRET_KEYS,
  TOP_KEYS,
  WORKSPACE_KEYS,
} from './job-file-schema';
import { formatKeyPath, isTable, tableLabel, type Problem } from './job-file-problem';
import type { KeyPath } from './toml-key-positions';

/**
 * Unknown keys are checked before types so a typo (`outptus`) is reported as a typo with
 * the key it most likely meant, not as "outputs is missing" somewhere else.
 */

type Shape =
  | { kind: 'table'; keys: Record<string, Shape> }
  /** Any key; tables inside (secret entries) have fixed keys. */
  | { kind: 'env' }
  | { kind: 'any' };

const ANY: Shape = { kind: 'any' };
const table = (keys: readonly string[], inner: Record<string, Shape> = {}): Shape => ({
  kind: 'table',
  keys: Object.fromEntries(keys.map((k) => [k, inner[k] ?? ANY])),
});

const JOB_FILE_SHAPE = table(TOP_KEYS, {
  job: table(JOB_KEYS, { workspace: table(WORKSPACE_KEYS), env: { kind: 'env' } }),
  pool: table(POOL_KEYS),
  policy: table(POLICY_KEYS, { gpu_idle: table(GPU_IDLE_KEYS) }),
  recovery: table(RECOVERY_KEYS),
});

/** Every key the document has that the job file format does not, in no particular order. */
export function findUnknownKeys(doc: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  walk(doc, JOB_FILE_SHAPE, [], problems);
  return problems;
}

function walk(value: unknown, shape: Shape, path: KeyPath, out: Problem[]): void {
  if (!isTable(value) || shape.kind === 'any') return;
  if (shape.kind === 'env') {
    for (const [name, entry] of Object.entries(value)) {
      if (isTable(entry)) walk(entry, table(SECRET_KEYS), [...path, name], out);
    }
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    const known = shape.keys[key];
    if (known) walk(child, known, [...path, key], out);
    else out.push(unknownKey(path, key, Object.keys(shape.keys), isTable(child)));
  }
}

function unknownKey(
  parent: KeyPath,
  key: string,
  known: readonly string[],
  isTableValue: boolean,
): Problem {
  const path = [...parent, key];
  const accepts = `${tableLabel(parent)} accepts: ${known.join(', ')}`;
  const typo = closestKey(key, known);
  if (parent.length === 0) {
    const home = homeTableOf(key);
    if (isTableValue || !home) {
      const guess = typo ? `; did you mean [${typo}]?` : '';
      return { path, text: `unknown table [${formatKeyPath([key])}]${guess}`, hint: accepts };
    }
    return {
      path,
      text: `key "${key}" must be inside [${home}]`,
      hint: `add a [${home}] line above it`,
    };
  }
  const where = tableLabel(parent);
  if (typo)
    return {
      path,
      text: `unknown key "${key}" in ${where}; did you mean "${typo}"?`,
      hint: accepts,
    };
  const home = parent.length === 1 ? homeTableOf(key) : undefined;
  if (home && home !== parent[0]) {
    return { path, text: `key "${key}" belongs in [${home}], not ${where}`, hint: accepts };
  }
  return { path, text: `unknown key "${key}" in ${where}`, hint: accepts };
}

function homeTableOf(key: string): string | undefined {
  if (JOB_KEYS.includes(key)) return 'job';
  if (POOL_KEYS.includes(key)) return 'pool';
  if (POLICY_KEYS.includes(key)) return 'policy';
  return undefined;
}

/**
 * The known key within typo distance (optimal string alignment, so one swap of neighbours
 * counts as one edit), ignoring case. Short keys allow one edit, longer ones two.
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const limit = lower.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    const d = editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
