/**
 * SkyPilot's `resources.accelerators`, in every form its YAML spec allows: `A100:8` (or
 * `A100`, a count of 1), an ordered list `['A100:8', 'H100:8']`, a set as a dict
 * `{A100: 8, H100: 8}` or a string `"{A100:8, H100:8}"`. The result keeps the order written.
 */
export interface Accelerator {
  name: string;
  /** SkyPilot allows fractions (`A100:0.5`, a shared GPU); Tender rents whole GPUs. */
  count: number;
}

export interface AcceleratorChoice {
  options: Accelerator[];
  /** A list says "try in this order"; a set says "any of these" (SkyPilot picks the cheapest). */
  ordered: boolean;
}

/** The accelerators a value names, or a reason it is not one SkyPilot reads. */
export function parseAccelerators(value: unknown): AcceleratorChoice | { error: string } {
  if (typeof value === 'string') {
    const set = /^\{(.*)\}$/.exec(value.trim());
    if (set) return many(set[1]!.split(','), false);
    return many([value], true);
  }
  if (Array.isArray(value)) return many(value, true);
  if (typeof value === 'object' && value !== null) {
    const options: Accelerator[] = [];
    for (const [key, count] of Object.entries(value)) {
      // `{A100:8, H100:8}` without spaces reads as keys `A100:8` with no value.
      if (count === null && key.includes(':')) {
        const one = parseOne(key);
        if ('error' in one) return one;
        options.push(one);
        continue;
      }
      const name = key;
      const n = count === null || count === undefined ? 1 : Number(count);
      if (!Number.isFinite(n) || n <= 0)
        return { error: `${name}: ${String(count)} is not a GPU count` };
      options.push({ name: name.trim(), count: n });
    }
    if (options.length === 0) return { error: 'an empty accelerators dict' };
    return { options, ordered: false };
  }
  return { error: `${JSON.stringify(value)} is not an accelerator spec such as A100:8` };
}

function many(items: unknown[], ordered: boolean): AcceleratorChoice | { error: string } {
  const options: Accelerator[] = [];
  for (const item of items) {
    // `- T4: 1` / `- V100: null` (null is a count of 1).
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      const inner = parseAccelerators(item);
      if ('error' in inner) return inner;
      options.push(...inner.options);
      continue;
    }
    const one = parseOne(item);
    if ('error' in one) return one;
    options.push(one);
  }
  if (options.length === 0) return { error: 'no accelerator named' };
  return { options, ordered };
}

function parseOne(item: unknown): Accelerator | { error: string } {
  if (typeof item !== 'string' || item.trim() === '')
    return { error: `${JSON.stringify(item)} is not an accelerator such as A100:8` };
  const [name, count, ...rest] = item
    .trim()
    .split(':')
    .map((s) => s.trim());
  const n = count === undefined ? 1 : Number(count);
  if (rest.length > 0 || !name || !Number.isFinite(n) || n <= 0)
    return { error: `"${item.trim()}" is not NAME or NAME:COUNT (e.g. A100:8)` };
  return { name, count: n };
}
