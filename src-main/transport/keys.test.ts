import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import ssh2 from 'ssh2';
import { ensureTenderKey, generateEd25519 } from './keys';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tender-keys-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe("Tender's SSH key", () => {
  it('is created on first use: ed25519, private 0600 in a 0700 folder, and a .pub', () => {
    const key = ensureTenderKey(home);
    expect(key.privatePath).toBe(join(home, 'keys', 'id_ed25519'));
    expect(mode(join(home, 'keys'))).toBe(0o700);
    expect(mode(key.privatePath)).toBe(0o600);
    expect(key.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    expect(key.publicKey).toMatch(new RegExp(`^ssh-ed25519 AAAA\\S+ tender@${hostname()}$`));
    expect(readFileSync(`${key.privatePath}.pub`, 'utf8')).toBe(`${key.publicKey}\n`);
    // OpenSSH itself reads the key and derives the same public half.
    const derived = execFileSync('ssh-keygen', ['-y', '-f', key.privatePath], { encoding: 'utf8' });
    expect(derived.split(' ').slice(0, 2)).toEqual(key.publicKey.split(' ').slice(0, 2));
  });

  it('is read, not replaced, on later calls', () => {
    const first = ensureTenderKey(home);
    const again = ensureTenderKey(home);
    expect(again).toEqual(first);
  });

  it('rewrites a lost .pub from the private key', () => {
    const first = ensureTenderKey(home);
    rmSync(`${first.privatePath}.pub`);
    expect(ensureTenderKey(home).publicKey).toBe(first.publicKey);
    expect(readFileSync(`${first.privatePath}.pub`, 'utf8')).toBe(`${first.publicKey}\n`);
  });

  it('refuses a private key others can read, saying how to fix it', () => {
    const { privatePath } = ensureTenderKey(home);
    for (const loose of [0o644, 0o640, 0o604, 0o660]) {
      chmodSync(privatePath, loose);
      expect(() => ensureTenderKey(home)).toThrow(`chmod 600 ${privatePath}`);
    }
    chmodSync(privatePath, 0o400);
    expect(() => ensureTenderKey(home)).not.toThrow();
  });

  it('does not put the key in the error about a broken key file', () => {
    const { privatePath, privateKey } = ensureTenderKey(home);
    const broken = privateKey.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!!!!!!!!!!!!!!!!!');
    execFileSync('sh', ['-c', `cat > ${privatePath}`], { input: broken });
    let message = '';
    try {
      ensureTenderKey(home);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('not a usable private key');
    expect(message).not.toContain(privateKey.split('\n')[2]!);
  });
});

describe('generateEd25519', () => {
  // What ssh2's generator wrote for a public key starting with a zero byte: 31 bytes, unreadable.
  const MALFORMED = `-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMgAAAAtz
c2gtZWQyNTUxOQAAAB/aoTyhondXt0gC8mGbpugDMHjCYjGUFAbtexCXzmDJAAAA
iNvt06Lb7dOiAAAAC3NzaC1lZDI1NTE5AAAAH9qhPKGid1e3SALyYZum6AMweMJi
MZQUBu17EJfOYMkAAAA/+cCAe50+WNrsc/R0Tr6o8z46xWozCABO5LHHnqC90Bza
oTyhondXt0gC8mGbpugDMHjCYjGUFAbtexCXzmDJAAAAAWMBAgMEBQY=
-----END OPENSSH PRIVATE KEY-----
`;

  it('throws away a pair ssh2 cannot read back and makes another', () => {
    expect(ssh2.utils.parseKey(MALFORMED)).toBeInstanceOf(Error);
    // A readable pair to follow it: ssh2's own generator makes an unreadable one 1 time in
    // 256, which would be thrown away too and leave the fake generator empty.
    const good = generateEd25519('c');
    const made = [{ private: MALFORMED, public: 'x' }, good];
    const pair = generateEd25519('c', () => made.shift()!);
    expect(pair).toBe(good);
    expect(made).toEqual([]);
  });
});
