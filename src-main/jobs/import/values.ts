/** Reading YAML values loosely where SkyPilot and dstack do (PyYAML reads `yes` as true). */

export function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function boolOf(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const t = v.toLowerCase();
    if (['true', 'yes', 'on'].includes(t)) return true;
    if (['false', 'no', 'off'].includes(t)) return false;
  }
  return undefined;
}

export function intOf(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

/** `8080`, `"8080"`, `"8000-8010"` (SkyPilot's forms) or a list of them → port numbers;
 *  undefined when one is not a port (or a range is longer than `maxRange`). */
export function portsOf(v: unknown, maxRange = 16): number[] | undefined {
  const items = Array.isArray(v) ? v : [v];
  const out: number[] = [];
  for (const item of items) {
    const text = String(item).trim();
    const range = /^(\d{1,5})-(\d{1,5})$/.exec(text);
    if (range) {
      const [lo, hi] = [Number(range[1]), Number(range[2])];
      if (hi < lo || hi - lo >= maxRange || !isPort(lo) || !isPort(hi)) return undefined;
      for (let p = lo; p <= hi; p++) out.push(p);
      continue;
    }
    if (!/^\d{1,5}$/.test(text) || !isPort(Number(text))) return undefined;
    out.push(Number(text));
  }
  return [...new Set(out)];
}

export const isPort = (n: number): boolean => n >= 1 && n <= 65535;
