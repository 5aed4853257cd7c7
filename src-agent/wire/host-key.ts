import { createHash } from 'node:crypto';

/** The placement-relevant part of a declaration, the input of the hk1 key: exactly these
 *  seven keys, always all seven. Absent, empty and null are the same input. */
export interface HostKeyInput {
  runner?: string | null;
  image?: string | null;
  resources?: Record<string, number | string> | null;
  host_setup?: string[] | null;
  provider?: string | null;
  extras?: Record<string, unknown> | null;
}

/** `hk1_` + base32-lower-nopad(sha256(canonical_json(subset))[0..10]). Equal keys may share
 *  a warm node. */
export function hostKey(input: HostKeyInput): string {
  const subset = {
    v: 1,
    runner: input.runner || null,
    image: input.image || null,
    resources: input.resources ?? {},
    host_setup: input.host_setup ?? [],
    provider: input.provider || null,
    extras: input.extras ?? {},
  };
  const digest = createHash('sha256').update(canonicalJson(subset), 'utf8').digest();
  return `hk1_${base32LowerNoPad(digest.subarray(0, 10))}`;
}

/** UTF-8, no whitespace, object keys sorted by code point recursively; floats refused. */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`host key: ${value} is not an integer`);
    return String(value);
  }
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value as object).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  throw new Error(`host key: cannot encode ${typeof value}`);
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

function base32LowerNoPad(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let acc = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(acc << (5 - bits)) & 31];
  return out;
}
