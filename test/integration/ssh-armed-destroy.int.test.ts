// The ssh provider's destroy opened ahead (armDestroy) against a real sshd: a destroy then
// runs on the command waiting for its go, none is opened at the destroy itself; one whose
// connection died falls back to a fresh command; one never fired ends having done nothing.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SshProvider } from '../../src-main/providers/ssh/ssh-provider';
import { writeHosts } from '../../src-main/providers/ssh/hosts-file';
import type { NodeShell } from '../../src-main/transport/node-shell';
import { connectSsh } from '../../src-main/transport/ssh-shell';
import { startSshd } from '../helpers/sshd';
import { untilAsync } from '../helpers/wait';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LABEL = 'tender-armtest-r1-node-0';
const handle = { provider: 'ssh', leaseId: `ssh:h0/${LABEL}`, host: 'h0', label: LABEL };

/** A host h0 with a lease folder whose pids/ names one running process group; a provider
 *  whose every command is recorded. */
async function hostWithLease() {
  const f = await startSshd();
  const root = mkdtempSync(join(tmpdir(), 'tender-armed-'));
  cleanups.push(async () => {
    await f.stop();
    rmSync(root, { recursive: true, force: true });
  });
  const keyFile = join(root, 'key');
  writeFileSync(keyFile, f.clientKey.privateKey);
  chmodSync(keyFile, 0o600);
  writeHosts(root, [
    { name: 'h0', host: f.host, port: f.port, user: f.user, identityFile: keyFile },
  ]);
  const D = `$HOME/.tender/nodes/${LABEL}`;
  const started = await f.exec(
    `mkdir -p "${D}/pids" && { setsid sleep 300 </dev/null >/dev/null 2>&1 & p=$!; touch "${D}/pids/$p"; echo $p; }`,
  );
  const pid = Number(started.stdout.trim());
  const commands: string[] = [];
  const provider = new SshProvider(root, async (_host, signal) => {
    const shell = await connectSsh(
      { host: f.host, port: f.port, user: f.user, privateKey: f.clientKey.privateKey },
      { hostKey: () => null, signal, deadlineMs: 20_000 },
    );
    const recorded: NodeShell = {
      description: shell.description,
      exec: (c) => (commands.push(c), shell.exec(c)),
      close: () => shell.close(),
    };
    return recorded;
  });
  cleanups.push(() => provider.close());
  const alive = async () =>
    (await f.exec(`kill -0 ${pid} 2>/dev/null && echo yes || echo no`)).stdout.trim() === 'yes';
  const folder = async () =>
    (await f.exec(`[ -d "${D}" ] && echo yes || echo no`)).stdout.trim() === 'yes';
  /** The armed command waits on the host (its bash, reading its stdin). */
  const waiting = async () =>
    (
      await f.exec(`pgrep -u ${f.user} -f '[r]ead -r go' >/dev/null && echo yes || echo no`)
    ).stdout.trim() === 'yes';
  return { f, provider, commands, alive, folder, waiting };
}

describe('the ssh provider’s destroy, opened ahead (armDestroy)', () => {
  it('runs on the command opened ahead: none is opened at the destroy, the processes stop and the folder goes', async () => {
    const h = await hostWithLease();
    h.provider.armDestroy(handle);
    await untilAsync(h.waiting, { ms: 10_000, what: 'the armed command waiting on the host' });
    expect(await h.folder()).toBe(true); // armed is not destroyed
    expect(await h.alive()).toBe(true);
    const opened = h.commands.length;
    expect(await h.provider.destroyLease(handle, new AbortController().signal)).toBe('gone');
    expect(h.commands.length).toBe(opened);
    expect(await h.folder()).toBe(false);
    expect(await h.alive()).toBe(false);
  });

  it('falls back to a fresh command when the armed one lost its connection', async () => {
    const h = await hostWithLease();
    h.provider.armDestroy(handle);
    await untilAsync(h.waiting, { ms: 10_000, what: 'the armed command waiting on the host' });
    await h.f.killSessions(); // the armed command's connection and bash die
    expect(await h.provider.destroyLease(handle, new AbortController().signal)).toBe('gone');
    expect(h.commands.at(-1)).not.toMatch(/read -r go/);
    expect(await h.folder()).toBe(false);
    expect(await h.alive()).toBe(false);
  });

  it('one never fired ends having done nothing when the provider closes', async () => {
    const h = await hostWithLease();
    h.provider.armDestroy(handle);
    await untilAsync(h.waiting, { ms: 10_000, what: 'the armed command waiting on the host' });
    await h.provider.close();
    await untilAsync(async () => !(await h.waiting()), {
      ms: 10_000,
      what: 'the armed command gone',
    });
    expect(await h.folder()).toBe(true);
    expect(await h.alive()).toBe(true);
    // And a destroy after it opens its own command.
    expect(await h.provider.destroyLease(handle, new AbortController().signal)).toBe('gone');
    expect(await h.folder()).toBe(false);
  });
});
