// `GET /api/v1/instances/` as show_instances_v1.yaml describes it and the current vast-cli
// (`vastai show instances-v1 --label …`, and the SDK's show_instances) calls it: JSON in
// query parameters `select_filters`, `order_by`, `select_cols`, `limit` (max 25) and
// keyset pagination by `after_token` — base64 of {"values": {<order cols>, "id": …}},
// the shape of the yaml's example token.
import { FilterError, isFilterObject, matchesOps } from './filter-ops';
import { invalidArgs } from './reply';

/** Columns stored on the contract record; computed ones (dph_total, num_gpus…) are refused. */
const FILTERABLE = new Set([
  'id',
  'label',
  'actual_status',
  'intended_status',
  'cur_state',
  'next_state',
  'gpu_name',
  'verification',
  'machine_id',
  'host_id',
  'image_uuid',
  'image_runtype',
  'template_hash_id',
  'start_date',
]);
const MAX_LIMIT = 25;
const NON_POSITIVE_LIMIT = 5;

type Row = Record<string, unknown>;
type OrderBy = { col: string; dir: 'asc' | 'desc' }[];

export function listInstancesV1(rows: Row[], query: URLSearchParams): Record<string, unknown> {
  const filters = parseJson(query, 'select_filters', {});
  if (!isFilterObject(filters)) throw invalidArgs('select_filters must be a JSON object');
  for (const [col, ops] of Object.entries(filters)) {
    if (!FILTERABLE.has(col)) throw invalidArgs(`Column '${col}' is not filterable`);
    if (!isFilterObject(ops)) throw invalidArgs(`Filter for '${col}' must be an object`);
  }
  let matching: Row[];
  try {
    matching = rows.filter((r) =>
      Object.entries(filters).every(([col, ops]) =>
        matchesOps(col, r[col], ops as Record<string, unknown>),
      ),
    );
  } catch (err) {
    if (err instanceof FilterError) throw invalidArgs(err.message);
    throw err;
  }
  const order = parseOrder(parseJson(query, 'order_by', []), rows[0]);
  matching.sort((a, b) => compare(a, b, order));
  const after = query.get('after_token');
  const start = after === null ? 0 : matching.findIndex((r) => compare(r, token(after), order) > 0);
  const page = start < 0 ? [] : matching.slice(start, start + limitOf(query));
  const last = page.at(-1);
  const hasMore = last !== undefined && matching.indexOf(last) < matching.length - 1;
  const labelCounts: Record<string, number> = {};
  for (const r of matching) {
    const label = typeof r.label === 'string' ? r.label : '';
    labelCounts[label] = (labelCounts[label] ?? 0) + 1;
  }
  return {
    success: true,
    instances_found: page.length,
    total_instances: matching.length,
    label_counts: labelCounts,
    next_token: hasMore ? makeToken(last, order) : null,
    instances: page.map((r) => selectCols(r, parseJson(query, 'select_cols', ['*']))),
  };
}

function parseJson(query: URLSearchParams, name: string, fallback: unknown): unknown {
  const raw = query.get(name);
  if (raw === null) return fallback;
  try {
    return JSON.parse(raw);
  } catch {
    throw invalidArgs(`invalid json in ${name}: ${raw}`);
  }
}

function parseOrder(raw: unknown, sample: Row | undefined): OrderBy {
  if (!Array.isArray(raw)) throw invalidArgs('order_by must be a JSON array');
  const order: OrderBy = raw.map((o: unknown) => {
    const col = isFilterObject(o) ? o.col : undefined;
    if (typeof col !== 'string') throw invalidArgs(`Invalid order_by entry ${JSON.stringify(o)}`);
    if (sample && !(col in sample)) throw invalidArgs(`Invalid order_by column '${col}'`);
    return { col, dir: (o as { dir?: unknown }).dir === 'desc' ? 'desc' : 'asc' };
  });
  if (!order.some((o) => o.col === 'id')) order.push({ col: 'id', dir: 'asc' });
  return order;
}

function compare(a: Row, b: Row, order: OrderBy): number {
  for (const { col, dir } of order) {
    const x = a[col] as number | string | null;
    const y = b[col] as number | string | null;
    if (x === y) continue;
    const c = x === null ? -1 : y === null ? 1 : x < y ? -1 : 1;
    return dir === 'asc' ? c : -c;
  }
  return 0;
}

function limitOf(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null) return MAX_LIMIT;
  const n = Number.parseInt(raw, 10);
  if (!Number.isFinite(n)) throw invalidArgs(`limit must be an integer, got ${raw}`);
  return n <= 0 ? NON_POSITIVE_LIMIT : Math.min(n, MAX_LIMIT);
}

function makeToken(row: Row, order: OrderBy): string {
  const values = Object.fromEntries(order.map((o) => [o.col, row[o.col]]));
  return Buffer.from(JSON.stringify({ values })).toString('base64');
}

function token(raw: string): Row {
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as { values?: unknown };
    if (isFilterObject(parsed.values)) return parsed.values;
  } catch {
    // reported below
  }
  throw invalidArgs(`Invalid after_token: ${raw}`);
}

function selectCols(row: Row, cols: unknown): Row {
  if (!Array.isArray(cols) || cols.includes('*')) return row;
  return Object.fromEntries(cols.map((c) => [String(c), row[String(c)] ?? null]));
}
