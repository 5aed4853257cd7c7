// How ssh2's failures map to Tender's classes and messages, and that a key never leaks into
// one. Real connections are in test/integration/ssh-shell.int.test.ts.
import ssh2 from 'ssh2';
import { describe, expect, it } from 'vitest';
import {
  classifySshFailure,
  finalSshError,
  formatDuration,
  redactSecrets,
  SshError,
} from './ssh-errors';
import { connectSsh } from './ssh-shell';

const EP = '1.2.3.4:22001';
const err = (message: string, level?: string, code?: string) =>
  Object.assign(new Error(message), { level, code });

describe('classifySshFailure', () => {
  const table: [string, Error, string][] = [
    ['refused', err('connect ECONNREFUSED', 'client-socket', 'ECONNREFUSED'), 'refused'],
    ['unreachable', err('connect EHOSTUNREACH', 'client-socket', 'EHOSTUNREACH'), 'timeout'],
    ['reset', err('read ECONNRESET', 'client-socket', 'ECONNRESET'), 'handshake'],
    [
      'no handshake in time',
      err('Timed out while waiting for handshake', 'client-timeout'),
      'timeout',
    ],
    ['keepalive', err('Keepalive timeout', 'client-timeout'), 'timeout'],
    [
      'key rejected',
      err('All configured authentication methods failed', 'client-authentication'),
      'auth',
    ],
    ['kex', err('Handshake failed: no matching key exchange algorithm', 'handshake'), 'handshake'],
    ['lost early', err('Connection lost before handshake', 'protocol'), 'handshake'],
    ['no name', err('getaddrinfo ENOTFOUND', 'client-dns'), 'refused'],
  ];
  for (const [name, e, kind] of table)
    it(`${name} → ${kind}`, () => {
      const c = classifySshFailure(e, EP, 'root', null);
      expect(c).toBeInstanceOf(SshError);
      expect(c.kind).toBe(kind);
      expect(c.endpoint).toBe(EP);
    });

  it('reports our host verifier refusal as host_key, with its reason', () => {
    const e = err('Handshake failed: Host denied (verification failed)', 'handshake');
    const c = classifySshFailure(e, EP, 'root', 'host key for gpu-1 changed: pinned X, offered Y');
    expect(c.kind).toBe('host_key');
    expect(c.message).toBe('host key for gpu-1 changed: pinned X, offered Y');
  });
});

describe('finalSshError', () => {
  it('says for how long and what to do', () => {
    const refused = classifySshFailure(err('', 'client-socket', 'ECONNREFUSED'), EP, 'root', null);
    expect(finalSshError(refused, 'root', 180_000).message).toBe(
      "SSH to 1.2.3.4:22001 refused for 3 min; sshd may not be up yet — check the node's boot log",
    );
    const auth = classifySshFailure(err('x', 'client-authentication'), EP, 'root', null);
    const final = finalSshError(auth, 'root', 9_000);
    expect(final.kind).toBe('auth');
    expect(final.message).toMatch(
      /^the node rejected Tender's key for user root at 1\.2\.3\.4:22001/,
    );
    expect(final.hint).toMatch(/authorized_keys.*identity_file/);
  });

  it('formats durations for people', () => {
    expect(formatDuration(1_400)).toBe('1 s');
    expect(formatDuration(89_000)).toBe('89 s');
    expect(formatDuration(180_000)).toBe('3 min');
  });
});

describe('keys stay out of messages', () => {
  it('redacts key material from library text', () => {
    const { private: pem } = ssh2.utils.generateKeyPairSync('ed25519');
    const out = redactSecrets(`oops: ${pem} and ${pem.split('\n')[1]}`);
    expect(out).not.toContain(pem.split('\n')[1]!);
    expect(out).toContain('oops');
  });

  it('refuses an unusable key before dialling, without quoting it', async () => {
    const locked = ssh2.utils.generateKeyPairSync('ed25519', {
      passphrase: 'secret',
      cipher: 'aes256-ctr',
      rounds: 16,
    }).private;
    for (const privateKey of [locked, 'not a key at all']) {
      const e = await connectSsh(
        { host: '127.0.0.1', port: 9, user: 'root', privateKey },
        { hostKey: () => null, signal: new AbortController().signal, deadlineMs: 60_000 },
      ).then(
        () => null,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(SshError);
      expect((e as SshError).kind).toBe('auth');
      expect((e as SshError).message).toContain('cannot be used');
      expect((e as SshError).message).not.toContain(privateKey.split('\n')[1] ?? privateKey);
    }
  });
});
