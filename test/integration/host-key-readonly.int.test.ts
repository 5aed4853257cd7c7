// A Tender process that only reads the ledger (`tender logs`, `tender forward` beside a
// running app) against a real sshd: it cannot pin a host key, so it refuses one nobody
// pinned yet, and connects once the writer has pinned it. Needs root (the sshd fixture).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Ledger } from '../../src-main/ledger/ledger';
import { sshConnector, type SshEndpoint } from '../../src-main/nodes/ssh-connect';
import { execCapture } from '../../src-main/transport/exec-helpers';
import { SshError } from '../../src-main/transport/ssh-shell';
import { type SshdFixture, startSshd } from '../helpers/sshd';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setUp(): Promise<{ f: SshdFixture; home: string; ep: SshEndpoint }> {
  const f = await startSshd();
  cleanups.push(() => f.stop());
  const root = mkdtempSync(join(tmpdir(), 'tender-hostkey-ro-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const identity = join(root, 'id_ed25519');
  writeFileSync(identity, f.clientKey.privateKey, { mode: 0o600 });
  const ep: SshEndpoint = {
    kind: 'ssh',
    host: f.host,
    port: f.port,
    user: f.user,
    authRef: identity,
    hostKeyScope: 'host:gpu-ro',
    knownHosts: false,
  };
  return { f, home: join(root, 'home'), ep };
}

const connect = (ep: SshEndpoint, home: string, ledger: Ledger) =>
  sshConnector(ep, { home, ledger, now: () => 1_000 }, 20_000)(new AbortController().signal);

describe('host keys in a read-only process', () => {
  it('refuses a key nobody pinned, naming why and the fix; accepts it once the writer pinned it', async () => {
    const { f, home, ep } = await setUp();
    const writer = Ledger.openWriter(home);
    cleanups.push(() => writer.close());
    const reader = Ledger.openReader(home)!;
    cleanups.push(() => reader.close());
    expect(reader.isReadonly).toBe(true);

    const err = await connect(ep, home, reader).then(
      (shell) => (void shell.close(), null),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SshError);
    expect((err as SshError).kind).toBe('host_key');
    const message = (err as Error).message;
    expect(message).toContain('no host key is pinned for host:gpu-ro');
    expect(message).toContain(f.hostKeyFingerprint);
    expect(message).toContain('only reads the data folder');
    expect(message).toContain('try again once the node has joined');
    expect(writer.getHostKey('host:gpu-ro')).toBeUndefined();

    // The writer's first contact pins the key; the reader then connects.
    await (await connect(ep, home, writer)).close();
    expect(writer.getHostKey('host:gpu-ro')?.fingerprint).toBe(f.hostKeyFingerprint);
    const shell = await connect(ep, home, reader);
    try {
      expect((await execCapture(shell, 'echo joined')).stdout).toBe('joined\n');
    } finally {
      await shell.close();
    }
  });
});
