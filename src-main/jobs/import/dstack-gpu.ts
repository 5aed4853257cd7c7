/**
 * dstack's `resources.gpu` (its `GPUSpec`): a count (`2`), a string of `:`-separated
 * tokens in any order — vendor (`nvidia`, `amd`, `tpu`, `intel`), names (`A100`, or
 * `A100,H100`), memory with a unit (`24GB`, `24GB..`, `24GB..80GB`), count (`8`, `2..4`) —
 * or a dict with `vendor`, `name` (one or a list), `count`, `memory`, `total_memory`,
 * `compute_capability`. A YAML list is read as names.
 */
export interface Range {
  min?: number;
  max?: number;
}

export interface DstackGpu {
  vendor?: string;
  names: string[];
  count: Range;
  /** Per GPU, in GB as dstack counts them (`1TB` = 1024). */
  memory?: Range;
  totalMemory?: Range;
  computeCapability?: string;
}

const VENDORS = new Set(['nvidia', 'amd', 'tpu', 'google', 'intel', 'tenstorrent']);
const DICT_KEYS = new Set([
  'vendor',
  'name',
  'count',
  'memory',
  'total_memory',
  'compute_capability',
]);

export function parseDstackGpu(value: unknown): DstackGpu | { error: string } {
  if (typeof value === 'number') return fromTokens(String(value));
  if (typeof value === 'string') return fromTokens(value);
  if (Array.isArray(value)) {
    if (!value.every((v) => typeof v === 'string' && v.trim() !== ''))
      return { error: 'a gpu list holds GPU names, e.g. [A100, H100]' };
    return { names: value.map((v: string) => v.trim()), count: { min: 1, max: 1 } };
  }
  if (typeof value === 'object' && value !== null)
    return fromDict(value as Record<string, unknown>);
  return { error: `${JSON.stringify(value)} is not a GPU spec such as A100:8 or 24GB..` };
}

function fromTokens(text: string): DstackGpu | { error: string } {
  const spec: DstackGpu = { names: [], count: { min: 1, max: 1 } };
  let hasCount = false;
  for (const token of text.replace(/\s/g, '').split(':')) {
    if (token === '') return { error: `"${text}" has an empty part` };
    if (VENDORS.has(token.toLowerCase())) {
      if (spec.vendor) return { error: `"${text}" names two vendors` };
      spec.vendor = token.toLowerCase();
    } else if (/^[A-Za-z]/.test(token)) {
      if (spec.names.length > 0) return { error: `"${text}" names GPUs twice` };
      spec.names = token.split(',');
      if (spec.names.some((n) => n === '')) return { error: `"${text}" has an empty GPU name` };
    } else if (/[A-Za-z]/.test(token)) {
      if (spec.memory) return { error: `"${text}" gives memory twice` };
      const memory = parseRange(token, parseMemory);
      if ('error' in memory) return memory;
      spec.memory = memory;
    } else {
      if (hasCount) return { error: `"${text}" gives a count twice` };
      const count = parseRange(token, parseCount);
      if ('error' in count) return count;
      spec.count = count;
      hasCount = true;
    }
  }
  return spec;
}

function fromDict(d: Record<string, unknown>): DstackGpu | { error: string } {
  const unknown = Object.keys(d).find((k) => !DICT_KEYS.has(k));
  if (unknown)
    return { error: `unknown gpu key "${unknown}" (dstack's are ${[...DICT_KEYS].join(', ')})` };
  const spec: DstackGpu = { names: [], count: { min: 1, max: 1 } };
  if (d.vendor !== undefined) spec.vendor = String(d.vendor).toLowerCase();
  if (d.name !== undefined) {
    const names = Array.isArray(d.name) ? d.name : [d.name];
    if (!names.every((n) => typeof n === 'string' && n.trim() !== ''))
      return { error: 'gpu.name is a GPU name or a list of them' };
    spec.names = names.map((n: string) => n.trim());
  }
  for (const [key, field, parse] of [
    ['count', 'count', parseCount],
    ['memory', 'memory', parseMemory],
    ['total_memory', 'totalMemory', parseMemory],
  ] as const) {
    if (d[key] === undefined) continue;
    const r = parseRange(d[key], parse);
    if ('error' in r) return { error: `gpu.${key}: ${r.error}` };
    spec[field] = r;
  }
  if (d.compute_capability !== undefined) spec.computeCapability = String(d.compute_capability);
  return spec;
}

/** `2`, `2..4`, `2..`, `..4` (dstack's Range). */
export function parseRange(
  value: unknown,
  parse: (t: string) => number | undefined,
): Range | { error: string } {
  const text = String(value).replace(/\s/g, '');
  const [lo, hi, ...rest] = text.includes('..') ? text.split('..') : [text, text];
  if (rest.length > 0) return { error: `"${text}" is not a range such as 2..4` };
  const r: Range = {};
  if (lo) {
    const n = parse(lo);
    if (n === undefined) return { error: `"${lo}" in "${text}" is not a number with its unit` };
    r.min = n;
  }
  if (hi) {
    const n = parse(hi);
    if (n === undefined) return { error: `"${hi}" in "${text}" is not a number with its unit` };
    r.max = n;
  }
  if (r.min === undefined && r.max === undefined) return { error: `"${text}" is an empty range` };
  if (r.min !== undefined && r.max !== undefined && r.min > r.max)
    return { error: `"${text}" runs backwards` };
  return r;
}

function parseCount(t: string): number | undefined {
  return /^\d+$/.test(t) ? Number(t) : undefined;
}

/** dstack's Memory: GB, with MB and TB (1024 apart); a bare number is GB. */
export function parseMemory(t: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(mb|gb|tb)?$/i.exec(t);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? 'gb').toLowerCase();
  return unit === 'tb' ? n * 1024 : unit === 'mb' ? n / 1024 : n;
}
