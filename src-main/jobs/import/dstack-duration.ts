import { parseDuration } from '../../contract/policy';
import { boolOf } from './values';

/** dstack durations: `off`, seconds as a number, or `90s`/`30m`/`6h`/`2d`/`1w`. */
export function dstackDuration(value: unknown): string | undefined {
  if (value === false || boolOf(value) === false || value === 'off') return 'none';
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return `${value}s`;
  const m = /^(\d+)\s*([smhdw])$/.exec(String(value).trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const text = m[2] === 'd' ? `${n * 24}h` : m[2] === 'w' ? `${n * 24 * 7}h` : `${n}${m[2]}`;
  return parseDuration(text) === undefined ? undefined : text;
}
