import {
  chmodSync,
  linkSync,
  mkdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';

export interface TenderKey {
  /** OpenSSH format. Never log it. */
  privateKey: string;
  /** `ssh-ed25519 AAAA… tender@host`: the line for a node's authorized_keys. */
  publicKey: string;
  privatePath: string;
}

/** Tender's own SSH key, `<home>/keys/id_ed25519` (+ `.pub`): created on first use, read
 *  after. Refuses a private key file that others can read, as OpenSSH does. */
export function ensureTenderKey(home: string): TenderKey {
  const dir = join(home, 'keys');
  const privatePath = join(dir, 'id_ed25519');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!exists(privatePath)) createKey(dir, privatePath);
  checkPrivate(privatePath);
  const privateKey = readFileSync(privatePath, 'utf8');
  const parsed = ssh2.utils.parseKey(privateKey);
  if (parsed instanceof Error)
    throw new Error(
      `${privatePath} is not a usable private key (${parsed.message}); move it away and Tender creates a new one`,
    );
  const publicKey = publicLine(parsed.type, parsed.getPublicSSH(), parsed.comment);
  const pubPath = `${privatePath}.pub`;
  // The private key is the truth; the .pub is rewritten when missing or stale.
  if (!exists(pubPath) || readFileSync(pubPath, 'utf8').trim() !== publicKey)
    writeFileSync(pubPath, `${publicKey}\n`, { mode: 0o600 });
  return { privateKey, publicKey, privatePath };
}

type KeyPair = { private: string; public: string };

/** A new ed25519 key pair that ssh2 itself can read back. ssh2's generator writes a public
 *  key whose first byte is 0 as 31 bytes (1 pair in 256), a key no parser accepts: such a pair
 *  is thrown away and another made. */
export function generateEd25519(
  comment: string,
  generate: (comment: string) => KeyPair = (c) =>
    ssh2.utils.generateKeyPairSync('ed25519', { comment: c }),
): KeyPair {
  for (;;) {
    const pair = generate(comment);
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair;
  }
}

function createKey(dir: string, privatePath: string): void {
  chmodSync(dir, 0o700);
  const pair = generateEd25519(`tender@${hostname()}`);
  // Written aside, then linked into place: link fails if another process got there first,
  // so two first runs at once end up with one key, never a torn or replaced one.
  const tmp = `${privatePath}.${process.pid}.tmp`;
  writeFileSync(tmp, pair.private, { mode: 0o600 });
  try {
    linkSync(tmp, privatePath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
}

function checkPrivate(path: string): void {
  if (process.platform === 'win32') return; // no Unix mode bits to check
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0)
    throw new Error(
      `${path} has permissions ${mode.toString(8).padStart(4, '0')}: a private key must be readable by you alone — run \`chmod 600 ${path}\``,
    );
}

function publicLine(type: string, blob: Buffer, comment: string): string {
  return `${type} ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
