// ustar header blocks and PAX extended-header records (POSIX.1-2001), both directions.

export const BLOCK = 512;

/** Largest value an 11-digit octal field holds: 8 GiB - 1. */
const MAX_OCTAL_11 = 0o77777777777;

export type TarEntryType = 'file' | 'directory' | 'symlink' | 'link';

export interface TarHeader {
  path: string;
  type: TarEntryType;
  /** The raw typeflag character ('0', '5', …). */
  typeflag: string;
  size: number;
  mode: number;
  mtime: Date;
  /** Target of a symlink or hard link; '' otherwise. */
  linkname: string;
}

/** Bytes needed to pad `size` to a whole block. */
export function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

// ── writing ──────────────────────────────────────────────────────────────────────────

export interface HeaderFields {
  path: string;
  typeflag: '0' | '5' | 'x';
  size: number;
  mode: number;
  /** Seconds since the epoch. */
  mtime: number;
}

/** The header block(s) for one entry: a PAX 'x' header first when ustar cannot hold it. */
export function encodeEntryHeaders(fields: HeaderFields): Buffer {
  const pax: [string, string][] = [];
  // PAX for paths that do not fit, and for non-ASCII ones so readers decode them as UTF-8.
  if (Buffer.byteLength(fields.path) > 100 || !/^[\x20-\x7e]*$/.test(fields.path)) {
    pax.push(['path', fields.path]);
  }
  if (fields.size > MAX_OCTAL_11) pax.push(['size', String(fields.size)]);
  const main = encodeHeader({
    ...fields,
    path: pax.some(([k]) => k === 'path') ? fallbackName(fields.path) : fields.path,
    size: fields.size > MAX_OCTAL_11 ? 0 : fields.size,
  });
  if (pax.length === 0) return main;
  const body = Buffer.from(pax.map(([k, v]) => paxRecord(k, v)).join(''));
  const paxHeader = encodeHeader({
    path: fallbackName(`PaxHeaders/${fields.path.replace(/\/$/, '').split('/').pop() ?? ''}`),
    typeflag: 'x',
    size: body.length,
    mode: 0o644,
    mtime: fields.mtime,
  });
  return Buffer.concat([paxHeader, body, Buffer.alloc(padding(body.length)), main]);
}

/** "<len> key=value\n" where len counts the whole record, its own digits included. */
export function paxRecord(key: string, value: string): string {
  const rest = ` ${key}=${value}\n`;
  const restLen = Buffer.byteLength(rest);
  let len = restLen + String(restLen).length;
  if (String(len).length !== String(restLen).length) len = restLen + String(len).length;
  return `${len}${rest}`;
}

/** An ASCII name of ≤ 100 bytes for the ustar field when the real one lives in PAX. */
function fallbackName(path: string): string {
  const ascii = path.replace(/[^\x20-\x7e]/g, '_');
  return ascii.length <= 100 ? ascii : ascii.slice(ascii.length - 100);
}

function encodeHeader(fields: HeaderFields): Buffer {
  const b = Buffer.alloc(BLOCK);
  b.write(fields.path, 0, 100, 'utf8');
  writeOctal(b, 100, 8, fields.mode & 0o7777);
  writeOctal(b, 108, 8, 0); // uid
  writeOctal(b, 116, 8, 0); // gid
  writeOctal(b, 124, 12, fields.size);
  writeOctal(b, 136, 12, Math.min(Math.max(0, Math.floor(fields.mtime)), MAX_OCTAL_11));
  b.write(fields.typeflag, 156, 1, 'latin1');
  b.write('ustar\u000000', 257, 8, 'latin1');
  b.fill(0x20, 148, 156); // checksum is computed with its own field as spaces
  let sum = 0;
  for (const byte of b) sum += byte;
  b.write(sum.toString(8).padStart(6, '0') + '\u0000 ', 148, 8, 'latin1');
  return b;
}

function writeOctal(b: Buffer, offset: number, width: number, value: number): void {
  b.write(value.toString(8).padStart(width - 1, '0') + '\u0000', offset, width, 'latin1');
}

// ── reading ──────────────────────────────────────────────────────────────────────────

export interface RawHeader {
  name: string;
  typeflag: string;
  size: number;
  mode: number;
  mtime: number;
  linkname: string;
}

export function isZeroBlock(b: Buffer): boolean {
  for (const byte of b) if (byte !== 0) return false;
  return true;
}

/** Parses one header block; throws on a bad checksum (not a tar, or corrupt). */
export function decodeHeader(b: Buffer, offset: number): RawHeader {
  const stored = readNumber(b, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (b[i] as number);
  if (stored !== sum) {
    throw new Error(`not a tar stream or corrupt: bad header checksum at byte ${offset}`);
  }
  const magic = b.toString('latin1', 257, 263);
  let name = readString(b, 0, 100);
  // POSIX ustar splits long names into prefix/name; old GNU headers use that area otherwise.
  if (magic === 'ustar\u0000') {
    const prefix = readString(b, 345, 155);
    if (prefix) name = `${prefix}/${name}`;
  }
  return {
    name,
    typeflag: String.fromCharCode(b[156] as number),
    size: readNumber(b, 124, 12),
    mode: readNumber(b, 100, 8),
    mtime: readNumber(b, 136, 12),
    linkname: readString(b, 157, 100),
  };
}

function readString(b: Buffer, offset: number, width: number): string {
  const end = b.indexOf(0, offset);
  return b.toString('utf8', offset, end < 0 || end > offset + width ? offset + width : end);
}

/** Octal text, or GNU base-256 (high bit set) for values that do not fit. */
function readNumber(b: Buffer, offset: number, width: number): number {
  if (((b[offset] as number) & 0x80) !== 0) {
    let value = (b[offset] as number) & 0x7f;
    for (let i = offset + 1; i < offset + width; i++) value = value * 256 + (b[i] as number);
    return value;
  }
  const text = b
    .toString('latin1', offset, offset + width)
    .replace(/[\0 ]+$/g, '')
    .trim();
  return text === '' ? 0 : parseInt(text, 8);
}

/** Parses the body of a PAX 'x' header into key → value. */
export function parsePaxRecords(body: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    if (space < 0) break;
    const len = parseInt(body.toString('latin1', at, space), 10);
    if (!(len > 0) || at + len > body.length) throw new Error('corrupt PAX extended header');
    const record = body.toString('utf8', space + 1, at + len - 1); // drops the trailing \n
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    at += len;
  }
  return out;
}
