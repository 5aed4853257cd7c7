import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fingerprintOf } from './host-key-info';

/** One key line of an OpenSSH known_hosts file. */
export interface KnownHostEntry {
  /** `revoked`: this key is refused wherever it shows up. `cert-authority` lines are kept
   *  but never match (Tender does not check host certificates). */
  marker: 'revoked' | 'cert-authority' | null;
  /** The host field as written: `a,b`, `[h]:2222`, `*.lan`, `!x`, or `|1|salt|hash`. */
  hosts: string;
  keyType: string;
  key: Buffer;
  fingerprint: string;
  /** 1-based, for messages. */
  line: number;
}

export interface KnownHostKey {
  keyType: string;
  fingerprint: string;
  line: number;
}

export interface KnownHostKeys {
  /** Keys listed for this host: the server must offer one of them. */
  keys: KnownHostKey[];
  /** Keys marked @revoked (for this host or any): refused. */
  revoked: KnownHostKey[];
}

/** Reads and parses a known_hosts file; a missing file is an empty list. */
export function readKnownHosts(path = join(homedir(), '.ssh', 'known_hosts')): KnownHostEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return parseKnownHosts(text);
}

/** Parses known_hosts text. Lines that do not parse are skipped, as ssh does. */
export function parseKnownHosts(text: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const fields = raw.trim().split(/\s+/);
    if (fields[0] === '' || fields[0]!.startsWith('#')) return;
    let marker: KnownHostEntry['marker'] = null;
    if (fields[0]!.startsWith('@')) {
      const m = fields.shift()!.toLowerCase();
      if (m === '@revoked') marker = 'revoked';
      else if (m === '@cert-authority') marker = 'cert-authority';
      else return;
    }
    const [hosts, keyType, b64] = fields;
    if (!hosts || !keyType || !b64 || !/^[A-Za-z0-9+/]+=*$/.test(b64)) return;
    const key = Buffer.from(b64, 'base64');
    if (key.length === 0) return;
    entries.push({ marker, hosts, keyType, key, fingerprint: fingerprintOf(key), line: i + 1 });
  });
  return entries;
}

/** The keys known_hosts lists for `host` on `port` (looked up as `host`, or `[host]:port`
 *  when the port is not 22, exactly as ssh does), and every revoked key. */
export function knownHostKeys(
  entries: KnownHostEntry[],
  host: string,
  port: number,
): KnownHostKeys {
  const name = port === 22 ? host.toLowerCase() : `[${host.toLowerCase()}]:${port}`;
  const result: KnownHostKeys = { keys: [], revoked: [] };
  for (const e of entries) {
    const k = { keyType: e.keyType, fingerprint: e.fingerprint, line: e.line };
    if (e.marker === 'revoked') result.revoked.push(k);
    else if (e.marker === null && hostFieldMatches(e.hosts, name)) result.keys.push(k);
  }
  return result;
}

/** ssh's rule: a hashed field matches its one name; a pattern list matches when some
 *  pattern matches and no negated (`!`) one does. */
export function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith('|1|')) return hashedMatches(field, name);
  let isMatch = false;
  for (const pattern of field.toLowerCase().split(',')) {
    if (pattern.startsWith('!')) {
      if (globMatches(pattern.slice(1), name)) return false;
    } else if (globMatches(pattern, name)) isMatch = true;
  }
  return isMatch;
}

function hashedMatches(field: string, name: string): boolean {
  const [, , salt64, hash64] = field.split('|');
  if (!salt64 || !hash64) return false;
  const want = Buffer.from(hash64, 'base64');
  const got = createHmac('sha1', Buffer.from(salt64, 'base64')).update(name).digest();
  return want.length === got.length && timingSafeEqual(want, got);
}

function globMatches(pattern: string, name: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === name;
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(name);
}
