// Vast's filter language, `{"field": {"op": value}}`, as search offers (bundles) and the v1
// instance list use it. Values arrive the way vast.py's parse_query leaves them: numbers
// often as strings ("num_gpus=1" → {"eq": "1"}), booleans as JSON booleans, lists for
// in/notin. Comparisons coerce the query value to the type of the stored value, as a SQL
// backend would; a stored null matches only `eq null` / `in [null]` / neq and notin.

/** A malformed query: the fake answers 400 with this message. */
export class FilterError extends Error {}

/** `nin` is the spelling of search_offers.yaml, `notin` the one vast.py sends. */
const OPS = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'notin', 'nin']);

export function isFilterObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when `actual` satisfies every operator in `ops`. */
export function matchesOps(field: string, actual: unknown, ops: Record<string, unknown>): boolean {
  for (const [op, expected] of Object.entries(ops)) {
    if (!OPS.has(op)) throw new FilterError(`Unknown operator '${op}' for field '${field}'`);
    if (!matchesOne(field, op, actual, expected)) return false;
  }
  return true;
}

function matchesOne(field: string, op: string, actual: unknown, expected: unknown): boolean {
  switch (op) {
    case 'eq':
      return same(actual, expected);
    case 'neq':
      return !same(actual, expected);
    case 'in':
      return asList(field, op, expected).some((e) => same(actual, e));
    case 'notin':
    case 'nin':
      return !asList(field, op, expected).some((e) => same(actual, e));
    default: {
      const a = typeof actual === 'number' ? actual : null;
      const e = toNumber(expected);
      if (e === null)
        throw new FilterError(`'${op}' on '${field}' needs a number, got ${json(expected)}`);
      if (a === null) return false;
      if (op === 'gt') return a > e;
      if (op === 'gte') return a >= e;
      if (op === 'lt') return a < e;
      return a <= e;
    }
  }
}

function same(actual: unknown, expected: unknown): boolean {
  if (actual === null || actual === undefined) return expected === null;
  if (typeof actual === 'number') return toNumber(expected) === actual;
  if (typeof actual === 'boolean') return toBoolean(expected) === actual;
  return actual === expected;
}

function asList(field: string, op: string, v: unknown): unknown[] {
  if (!Array.isArray(v))
    throw new FilterError(`'${op}' on '${field}' needs a list, got ${json(v)}`);
  return v;
}

function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function toBoolean(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'True' || v === 1) return true;
  if (v === 'false' || v === 'False' || v === 0) return false;
  return null;
}

function json(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}
