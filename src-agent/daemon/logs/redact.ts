// Secret values never reach the log: each one (6 characters or longer) becomes '***'.
// Shorter values would blank out ordinary words, so they are left alone. Every stretch
// covered by some secret is replaced once, so two secrets that overlap leave no piece of
// either (replacing one after the other would leave the other's tail readable).

export const MIN_SECRET_LENGTH = 6;
export const REDACTED = '***';

export interface Redactor {
  (text: string): string;
  /** What is replaced, as UTF-8 bytes: each line of each secret (none holds a newline, so
   *  no match ever spans two log lines). */
  readonly needles: readonly Buffer[];
}

export function createRedactor(secretValues: Iterable<string>): Redactor {
  const parts = new Set<string>();
  for (const value of secretValues) {
    // A multi-line secret (a PEM key) reaches the log one line at a time.
    for (const part of value.split(/\r?\n/)) {
      if (part.length >= MIN_SECRET_LENGTH) parts.add(part);
    }
  }
  const texts = [...parts];
  const needles = texts.map((t) => Buffer.from(t, 'utf8'));
  const redact = (text: string): string =>
    texts.length === 0 ? text : replaceRanges(text, matchRanges(text, texts));
  return Object.assign(redact, { needles });
}

export const NO_REDACTION: Redactor = createRedactor([]);

type Range = readonly [start: number, end: number];

/** Where the needles occur in `hay`, overlapping occurrences merged, in order. */
export function matchRanges<T extends string | Buffer>(hay: T, needles: readonly T[]): Range[] {
  const found: [number, number][] = [];
  const find = (n: T, from: number) => (hay as Buffer).indexOf(n as Buffer, from);
  for (const n of needles) {
    for (let at = find(n, 0); at >= 0; at = find(n, at + 1)) found.push([at, at + n.length]);
  }
  found.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [s, e] of found) {
    const last = merged.at(-1);
    if (last && s < last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return merged;
}

/** `hay` with each range replaced by '***'. */
export function replaceRanges(hay: string, ranges: readonly Range[]): string;
export function replaceRanges(hay: Buffer, ranges: readonly Range[]): Buffer;
export function replaceRanges(hay: string | Buffer, ranges: readonly Range[]): string | Buffer {
  if (ranges.length === 0) return hay;
  let at = 0;
  if (typeof hay === 'string') {
    let out = '';
    for (const [s, e] of ranges) {
      out += hay.slice(at, s) + REDACTED;
      at = e;
    }
    return out + hay.slice(at);
  }
  const star = Buffer.from(REDACTED);
  const pieces: Buffer[] = [];
  for (const [s, e] of ranges) {
    pieces.push(hay.subarray(at, s), star);
    at = e;
  }
  pieces.push(hay.subarray(at));
  return Buffer.concat(pieces);
}
