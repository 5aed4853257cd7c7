// Your own ssh, rsync and scp on Tender's nodes: `tender ssh-config --install`, then plain
// `ssh <alias>` by the real OpenSSH client of a user whose home is a temp folder, with
// BatchMode and host keys checked against the keys Tender pinned.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunView } from '../../src-main/contract';
import { parseEditorUrl } from '../../src-main/services/ssh-config/editor-url';
import { requireBuilt } from '../helpers/cli';
import { OwnSshUser } from '../helpers/own-ssh';
import { sshCore, sshJob } from '../helpers/ssh-core';
import { startSshd, type SshdFixture } from '../helpers/sshd';
import { vastSetups } from '../helpers/vast-setups';

const SECRET = 'hf_never_on_disk_7f3a';
const fixtures: SshdFixture[] = [];
const closers: (() => Promise<void> | void)[] = [];
beforeAll(requireBuilt);
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

/** A run on an own host (ssh provider) kept warm: its node lives on after the job. */
async function keptRun() {
  const f = await startSshd();
  fixtures.push(f);
  const t = sshCore([f]);
  closers.push(() => t.close());
  writeFileSync(join(t.work, 'hello.txt'), 'hello\n');
  const started = await t.core.client.invoke('run.start', {
    job: sshJob(t.work, { env: { LR: "3e-4 it's", HF_TOKEN: { secret: true, value: SECRET } } }),
    pool: { provider: 'ssh', hosts: ['h0'] },
    keep: true,
  });
  if (!started.ok) throw new Error(started.error.message);
  await t.core.waitRun(started.value.id);
  const view = await t.core.client.invoke('run.get', { runId: started.value.id });
  if (!view.ok) throw new Error(view.error.message);
  const run: RunView = view.value;
  expect(run.status, run.failedReason ?? '').toBe('completed');
  expect(run.nodes[0]!.stage).toBe('dormant');
  const user = new OwnSshUser(t.home);
  closers.push(() => user.cleanup());
  return { f, t, run, user };
}

describe("the user's own ssh on a kept node (own host, real sshd)", () => {
  it('ssh, scp and rsync reach it by its alias; after down the alias names nothing', async () => {
    const { f, t, run, user } = await keptRun();
    const alias = `tender-${run.id}`;

    const install = await user.tender(['ssh-config', '--install']);
    expect(install.code, install.stderr).toBe(0);
    const userConfig = join(user.home, '.ssh', 'config');
    expect(readFileSync(userConfig, 'utf8')).toBe(`Include ${join(t.home, 'ssh', 'config')}\n`);
    expect(statSync(userConfig).mode & 0o777).toBe(0o600);
    expect(statSync(join(user.home, '.ssh')).mode & 0o777).toBe(0o700);
    const again = await user.tender(['ssh-config', '--install']);
    expect(again.stderr).toContain('already includes');
    expect(readFileSync(userConfig, 'utf8').match(/Include/g)).toHaveLength(1);

    const printed = await user.tender(['ssh-config']);
    expect(printed.stdout).toContain(`Host ${alias}-node-0 ${alias}\n`);
    expect(printed.stdout).toContain('  StrictHostKeyChecking yes\n');

    for (const name of [alias, `${alias}-node-0`]) {
      const r = await user.ssh([name, 'echo "on $(whoami)"']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`on ${f.user}\n`);
    }
    // The job's environment in the user's own shell: one command, secrets left out.
    const env = await user.ssh([
      alias,
      '. ~/.tender/env && printf "%s|%s" "$LR" "${HF_TOKEN-unset}"',
    ]);
    expect(env.stdout).toBe("3e-4 it's|unset");
    const onDisk = await user.ssh([alias, `grep -rl ${SECRET} .tender || echo none`]);
    expect(onDisk.stdout).toBe('none\n');
    // The user's own known_hosts was neither read nor written.
    expect(() => statSync(join(user.home, '.ssh', 'known_hosts'))).toThrow();

    const local = join(user.home, 'data');
    mkdirSync(join(local, 'sub'), { recursive: true });
    writeFileSync(join(local, 'a.txt'), 'scp me\n');
    writeFileSync(join(local, 'sub', 'b.txt'), 'rsync me\n');
    const scp = await user.run('scp', [
      '-o',
      'BatchMode=yes',
      join(local, 'a.txt'),
      `${alias}:a.txt`,
    ]);
    expect(scp.code, scp.stderr).toBe(0);
    const rsync = await user.run('rsync', ['-a', `${local}/`, `${alias}:synced/`]);
    expect(rsync.code, rsync.stderr).toBe(0);
    const check = await user.ssh([alias, 'cat a.txt synced/sub/b.txt']);
    expect(check.stdout).toBe('scp me\nrsync me\n');

    // `tender open`: no editor on PATH prints the URL (the run's alias: its first node);
    // `code` on PATH gets the folder URI.
    const noEditor = await user.tender(['open', run.id], { PATH: '/usr/bin:/bin' });
    expect(noEditor.code, noEditor.stderr).toBe(0);
    const opened = parseEditorUrl(noEditor.stdout.trim());
    expect(opened).toMatchObject({ editor: 'code', alias });
    expect(opened!.folder).toMatch(/\/\.tender\/nodes\/.+\/workspace$/);
    const inWorkspace = await user.ssh([opened!.alias, `cat '${opened!.folder}/hello.txt'`]);
    expect(inWorkspace.stdout).toBe('hello\n');
    const bin = join(user.home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'cursor'), `#!/bin/sh\necho "$@" > ${join(user.home, 'args')}\n`, {
      mode: 0o755,
    });
    const cursor = await user.tender(['open', run.id, '--node', '0', '--editor', 'cursor'], {
      PATH: `${bin}:/usr/bin:/bin`,
    });
    expect(cursor.code, cursor.stderr).toBe(0);
    await waitForFile(join(user.home, 'args'));
    expect(readFileSync(join(user.home, 'args'), 'utf8')).toBe(
      `--folder-uri vscode-remote://ssh-remote+${alias}-node-0${opened!.folder}\n`,
    );

    const down = await t.core.client.invoke('lease.destroy', { target: run.id });
    expect(down.ok).toBe(true);
    // The next look (any tender command) rebuilds the entries from the ledger.
    const after = await user.tender(['ssh-config']);
    expect(after.stdout).not.toMatch(/^Host /m);
    const gone = await user.ssh([alias, 'true']);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toMatch(/Could not resolve hostname|Name or service not known/);

    const un = await user.tender(['ssh-config', '--uninstall']);
    expect(un.code, un.stderr).toBe(0);
    expect(readFileSync(userConfig, 'utf8')).toBe('');
  });

  it('a node whose host key changed is refused by your own ssh, as Tender refuses it', async () => {
    const { f, run, user } = await keptRun();
    const alias = `tender-${run.id}`;
    expect((await user.tender(['ssh-config', '--install'])).code).toBe(0);
    expect((await user.ssh([alias, 'true'])).code).toBe(0);

    await f.restart({ newHostKey: true });
    const refused = await user.ssh([alias, 'echo reached']);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).not.toContain('reached');
    expect(refused.stderr).toMatch(
      /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/,
    );
  });
});

describe("the user's own ssh on a kept Vast node (the fake's nodes are real sshd)", () => {
  const setup = vastSetups();
  it('ssh, scp and rsync reach it by its alias, host key checked; after down the alias names nothing', async () => {
    const { core, home, work, run } = await setup();
    const view = await run({
      job: { name: 'v', run: 'cat hello.txt', workspace: { workdir: work, exclude: [] } },
      pool: { provider: 'vastai', count: 1, gpu: 'RTX 4090' },
      keep: true,
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    const user = new OwnSshUser(home);
    closers.push(() => user.cleanup());
    const alias = `tender-${view.id}`;

    expect((await user.tender(['ssh-config', '--install'])).code).toBe(0);
    const printed = readFileSync(join(home, 'ssh', 'config'), 'utf8');
    expect(printed).toContain(`  IdentityFile ${join(home, 'keys', 'id_ed25519')}\n`);
    expect(printed).toMatch(/ {2}HostKeyAlias tender-lease-tender-/);
    const who = await user.ssh([`${alias}-node-0`, 'whoami']);
    expect(who.code, who.stderr).toBe(0);
    expect(who.stdout).toMatch(/^\w+\n$/);

    const local = join(user.home, 'data');
    mkdirSync(local, { recursive: true });
    writeFileSync(join(local, 'a.txt'), 'scp me\n');
    const scp = await user.run('scp', [
      '-o',
      'BatchMode=yes',
      join(local, 'a.txt'),
      `${alias}:a.txt`,
    ]);
    expect(scp.code, scp.stderr).toBe(0);
    const rsync = await user.run('rsync', ['-a', `${local}/`, `${alias}:synced/`]);
    expect(rsync.code, rsync.stderr).toBe(0);
    const check = await user.ssh([alias, 'cat a.txt synced/a.txt']);
    expect(check.stdout).toBe('scp me\nscp me\n');

    const down = await core.client.invoke('lease.destroy', { target: view.id });
    expect(down.ok && down.value.allConfirmed).toBe(true);
    const after = await user.tender(['ssh-config']);
    expect(after.stdout).not.toMatch(/^Host /m);
    const gone = await user.ssh([alias, 'true']);
    expect(gone.code).not.toBe(0);
  });
});

/** The editor stub runs detached from `tender open`: its file appears a moment after. */
async function waitForFile(path: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if (statSync(path).size > 0) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${path} never appeared`);
}
