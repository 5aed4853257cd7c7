import type { SourcePos } from '../../base/bad-input-error';

/** A path into the parsed document: table keys, and indices for array elements. */
export type KeyPath = readonly (string | number)[];

export interface KeyPositions {
  /** Where the key (or array element) at `path` is first written, if it is written. */
  at(path: KeyPath): SourcePos | undefined;
  /** `at(path)`, else the closest written ancestor: where a missing key should go. */
  nearest(path: KeyPath): SourcePos | undefined;
}

/**
 * Finds where each key of a TOML document is written. smol-toml returns plain values with
 * no positions, and messages about unknown keys or wrong types must say where to look.
 *
 * The text must already have parsed: this scanner is lexical and forgiving, not a validator.
 * It knows enough TOML to skip strings, comments, arrays and inline tables. A table header
 * `[a.b]` is placed at its `[`; a key at its first character.
 */
export function locateTomlKeys(text: string): KeyPositions {
  const scanner = new Scanner(text);
  scanner.document();
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const toPos = (offset: number): SourcePos => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - lineStarts[lo]! + 1 };
  };
  const at = (path: KeyPath): SourcePos | undefined => {
    const offset = scanner.offsets.get(pathId(path));
    return offset === undefined ? undefined : toPos(offset);
  };
  return {
    at,
    nearest(path) {
      for (let n = path.length; n > 0; n--) {
        const pos = at(path.slice(0, n));
        if (pos) return pos;
      }
      return undefined;
    },
  };
}

const pathId = (path: KeyPath): string => path.map(String).join('\u0000');

const BARE_KEY_CHAR = /[A-Za-z0-9_-]/;
const SCALAR_END = new Set([',', ']', '}', '\n', '\r', '#']);

interface KeyPart {
  name: string;
  offset: number;
}

class Scanner {
  readonly offsets = new Map<string, number>();
  private i = 0;
  private readonly arrayTableCounts = new Map<string, number>();

  constructor(private readonly s: string) {}

  document(): void {
    let table: KeyPath = [];
    while (this.skipBlank(true)) {
      const start = this.i;
      if (this.s[this.i] === '[') {
        const isArray = this.s[this.i + 1] === '[';
        this.i += isArray ? 2 : 1;
        const parts = this.key([], false);
        const path = parts.map((p) => p.name);
        this.skipBlank(false);
        this.i += isArray ? 2 : 1;
        if (isArray) {
          const n = this.arrayTableCounts.get(pathId(path)) ?? 0;
          this.arrayTableCounts.set(pathId(path), n + 1);
          this.record(path, start);
          table = [...path, n];
        } else {
          table = path;
        }
        this.record(table, start);
        this.recordParts([], parts);
      } else {
        this.keyValue(table);
      }
      if (this.i === start) this.i++; // never stall on something unexpected
    }
  }

  private keyValue(table: KeyPath): void {
    const parts = this.key(table);
    this.skipBlank(false);
    if (this.s[this.i] === '=') this.i++;
    this.skipBlank(false);
    this.value([...table, ...parts.map((p) => p.name)]);
  }

  /** Reads a dotted key and, unless told not to, records each of its prefixes under `table`. */
  private key(table: KeyPath, isRecorded = true): KeyPart[] {
    const parts: KeyPart[] = [];
    for (;;) {
      this.skipBlank(false);
      const offset = this.i;
      const c = this.s[this.i];
      let name: string;
      if (c === '"') name = decodeBasic(this.quoted('"', true));
      else if (c === "'") name = this.quoted("'", false);
      else {
        while (this.i < this.s.length && BARE_KEY_CHAR.test(this.s[this.i]!)) this.i++;
        if (this.i === offset) break;
        name = this.s.slice(offset, this.i);
      }
      parts.push({ name, offset });
      this.skipBlank(false);
      if (this.s[this.i] !== '.') break;
      this.i++;
    }
    if (isRecorded) this.recordParts(table, parts);
    return parts;
  }

  private recordParts(table: KeyPath, parts: KeyPart[]): void {
    parts.forEach((p, k) =>
      this.record([...table, ...parts.slice(0, k + 1).map((q) => q.name)], p.offset),
    );
  }

  private value(path: KeyPath): void {
    const s = this.s;
    if (s.startsWith('"""', this.i)) this.multiline('"""', true);
    else if (s.startsWith("'''", this.i)) this.multiline("'''", false);
    else if (s[this.i] === '"') this.quoted('"', true);
    else if (s[this.i] === "'") this.quoted("'", false);
    else if (s[this.i] === '[') this.array(path);
    else if (s[this.i] === '{') this.inlineTable(path);
    else while (this.i < s.length && !SCALAR_END.has(s[this.i]!)) this.i++;
  }

  private array(path: KeyPath): void {
    this.i++;
    for (let index = 0; this.skipBlank(true); index++) {
      if (this.s[this.i] === ']') break;
      const start = this.i;
      this.record([...path, index], start);
      this.value([...path, index]);
      this.skipBlank(true);
      if (this.s[this.i] === ',') this.i++;
      else if (this.i === start) this.i++;
    }
    this.i++;
  }

  private inlineTable(path: KeyPath): void {
    this.i++;
    while (this.skipBlank(true)) {
      if (this.s[this.i] === '}') break;
      const start = this.i;
      this.keyValue(path);
      this.skipBlank(true);
      if (this.s[this.i] === ',') this.i++;
      else if (this.i === start) this.i++;
    }
    this.i++;
  }

  /** Skips a one-line string and returns its raw body (escapes left as written). */
  private quoted(quote: string, hasEscapes: boolean): string {
    const start = ++this.i;
    while (this.i < this.s.length && this.s[this.i] !== quote && this.s[this.i] !== '\n') {
      this.i += hasEscapes && this.s[this.i] === '\\' ? 2 : 1;
    }
    const body = this.s.slice(start, this.i);
    this.i++;
    return body;
  }

  private multiline(delimiter: string, hasEscapes: boolean): void {
    this.i += 3;
    while (this.i < this.s.length && !this.s.startsWith(delimiter, this.i)) {
      this.i += hasEscapes && this.s[this.i] === '\\' ? 2 : 1;
    }
    this.i += 3;
    // A closing delimiter may be preceded by up to two quotes that belong to the string.
    for (let extra = 0; extra < 2 && this.s[this.i] === delimiter[0]; extra++) this.i++;
  }

  /** Skips spaces, comments and (when allowed) line breaks; false at the end of the text. */
  private skipBlank(lineBreaks: boolean): boolean {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === ' ' || c === '\t' || c === '\uFEFF') this.i++;
      else if (lineBreaks && (c === '\n' || c === '\r')) this.i++;
      else if (c === '#') while (this.i < s.length && s[this.i] !== '\n') this.i++;
      else break;
    }
    return this.i < s.length;
  }

  private record(path: KeyPath, offset: number): void {
    const id = pathId(path);
    if (!this.offsets.has(id)) this.offsets.set(id, offset);
  }
}

const ESCAPES: Record<string, string> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  e: '\x1b',
  '"': '"',
  '\\': '\\',
};

function decodeBasic(raw: string): string {
  return raw.replace(
    /\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{2})|(.))/g,
    (_m, u4?: string, u8?: string, x2?: string, c?: string) => {
      const hex = u4 ?? u8 ?? x2;
      if (hex !== undefined) return String.fromCodePoint(parseInt(hex, 16));
      return ESCAPES[c!] ?? c!;
    },
  );
}
