// Your own ssh, rsync and scp on a kept RunPod pod and a kept Lambda instance (the fakes'
// nodes are real sshd): after `tender ssh-config --install`, the real OpenSSH client of a
// user whose home is a temp folder reaches the node by its alias with BatchMode and the
// pinned host key; a node whose key changes is refused; the entries outlive a kill -9 of
// the CLI (the lease lives, so does its entry) and go with `tender down <run>`, at the look
// that learns the lease is gone. One fake per provider for the file.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CommandInput, RunView } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { startFakeLambda, type FakeLambda } from '../fakes/lambda';
import { startFakeRunpod, type FakeRunpod } from '../fakes/runpod';
import { requireBuilt, runCli } from '../helpers/cli';
import { openLambdaCore } from '../helpers/lambda-core';
import { OwnSshUser } from '../helpers/own-ssh';
import { openRunpodCore } from '../helpers/runpod-core';

/** What differs between the two clouds for this test. */
interface Cloud {
  name: string;
  provider: 'runpod' | 'lambda';
  gpu: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  open(home: string): TenderCore;
  /** The CLI's provider settings (the fake's URL and key). */
  env(): Record<string, string>;
  /** The one machine this file's run made in the fake: its id, user, liveness. */
  machine(): { id: string; user: string; isLive: boolean };
  newHostKey(id: string): Promise<void>;
}

let runpod: FakeRunpod | null = null;
let lambda: FakeLambda | null = null;

const CLOUDS: Cloud[] = [
  {
    name: 'RunPod',
    provider: 'runpod',
    gpu: 'RTX 4090',
    start: async () => void (runpod = await startFakeRunpod()),
    stop: async () => runpod?.stop(),
    open: (home) => openRunpodCore(runpod!, home).core,
    env: () => ({ TENDER_RUNPOD_URL: runpod!.url, TENDER_RUNPOD_API_KEY: runpod!.apiKey }),
    machine: () => {
      const [p] = runpod!.state.pods().slice(-1);
      return { id: p!.id, user: p!.node.user, isLive: p!.terminatedAt === null };
    },
    newHostKey: (id) => runpod!.faults.newHostKey(id),
  },
  {
    name: 'Lambda Cloud',
    provider: 'lambda',
    gpu: 'A10',
    start: async () => void (lambda = await startFakeLambda()),
    stop: async () => lambda?.stop(),
    open: (home) => openLambdaCore(lambda!, home),
    env: () => ({ TENDER_LAMBDA_URL: lambda!.url, TENDER_LAMBDA_API_KEY: lambda!.apiKey }),
    machine: () => {
      const [i] = lambda!.state.instances().slice(-1);
      return { id: i!.id, user: i!.node.user, isLive: i!.isLive };
    },
    newHostKey: (id) => lambda!.faults.newHostKey(id),
  },
];

const roots: string[] = [];
const users: OwnSshUser[] = [];
beforeAll(async () => {
  requireBuilt();
  await Promise.all(CLOUDS.map((c) => c.start()));
});
afterAll(async () => {
  await Promise.all(CLOUDS.map((c) => c.stop()));
});
afterEach(() => {
  for (const u of users.splice(0)) u.cleanup();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A job run to completion on one node of `cloud`, the node kept; then the app quits. */
async function keptNode(cloud: Cloud) {
  const root = mkdtempSync(join(tmpdir(), `tender-own-${cloud.provider}-`));
  roots.push(root);
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hello\n');
  const core = cloud.open(home);
  let run: RunView;
  try {
    const input: CommandInput<'run.start'> = {
      job: { name: 'kept', run: 'cat hello.txt', workspace: { workdir: work, exclude: [] } },
      pool: { provider: cloud.provider, count: 1, gpu: cloud.gpu },
      keep: true,
    };
    const started = await core.client.invoke('run.start', input);
    if (!started.ok) throw new Error(started.error.message);
    await core.waitRun(started.value.id);
    const view = await core.client.invoke('run.get', { runId: started.value.id });
    if (!view.ok) throw new Error(view.error.message);
    run = view.value;
  } finally {
    await core.close(); // the CLI needs the ledger's writer lock from here on
  }
  expect(run.status, run.failedReason ?? '').toBe('completed');
  expect(run.nodes[0]!.stage).toBe('dormant');
  const user = new OwnSshUser(home);
  users.push(user);
  return { home, run, user };
}

describe.each(CLOUDS)("the user's own ssh on a kept $name node", (cloud) => {
  it('ssh, scp, rsync by alias; a changed host key refused; survives kill -9; gone after down', async () => {
    const { home, run, user } = await keptNode(cloud);
    const machine = cloud.machine();
    const alias = `tender-${run.id}`;
    const entries = join(home, 'ssh', 'config');

    const install = await user.tender(['ssh-config', '--install']);
    expect(install.code, install.stderr).toBe(0);
    expect(readFileSync(entries, 'utf8')).toContain(`Host ${alias}-node-0 ${alias}\n`);
    expect(readFileSync(entries, 'utf8')).toMatch(/ {2}HostKeyAlias tender-lease-tender-/);
    for (const name of [alias, `${alias}-node-0`]) {
      const who = await user.ssh([name, 'whoami']);
      expect(who.code, who.stderr).toBe(0);
      expect(who.stdout).toBe(`${machine.user}\n`);
    }

    const local = join(user.home, 'data');
    mkdirSync(join(local, 'sub'), { recursive: true });
    writeFileSync(join(local, 'a.txt'), 'scp me\n');
    writeFileSync(join(local, 'sub', 'b.txt'), 'rsync me\n');
    const scp = await user.run('scp', ['-o', 'BatchMode=yes', join(local, 'a.txt'), `${alias}:`]);
    expect(scp.code, scp.stderr).toBe(0);
    const rsync = await user.run('rsync', ['-a', `${local}/`, `${alias}:synced/`]);
    expect(rsync.code, rsync.stderr).toBe(0);
    const check = await user.ssh([alias, 'cat a.txt synced/sub/b.txt']);
    expect(check.stdout).toBe('scp me\nrsync me\n');

    // `tender down` killed -9 before it asked the provider: the lease lives, so does the
    // entry (rebuilt from the ledger at the next look), and it still reaches the node.
    const env = cloud.env();
    const crashed = await runCli(['down', run.id], {
      home,
      env: { ...env, TENDER_TEST_CRASH_AT: 'before-destroy-call' },
    });
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    expect(cloud.machine().isLive).toBe(true);
    rmSync(join(home, 'ssh'), { recursive: true, force: true });
    const look = await user.tender(['ssh-config']);
    expect(look.stdout).toContain(`Host ${alias}-node-0 ${alias}\n`);
    const still = await user.ssh([alias, 'echo still']);
    expect(still.code, still.stderr).toBe(0);
    expect(still.stdout).toBe('still\n');

    // The machine behind the address answers with another key: refused, as Tender would.
    await cloud.newHostKey(machine.id);
    const refused = await user.ssh([alias, 'echo reached']);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).not.toContain('reached');
    expect(refused.stderr).toMatch(
      /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/,
    );

    // Killed -9 again, after the provider accepted the destroy: the ledger has not heard
    // it confirmed, so the entry stays (a lease is named until confirmed gone)…
    const crashedAfter = await runCli(['down', run.id], {
      home,
      env: { ...env, TENDER_TEST_CRASH_AT: 'after-destroy-call' },
    });
    expect(crashedAfter.signal, crashedAfter.stderr).toBe('SIGKILL');
    expect(cloud.machine().isLive).toBe(false);
    expect(readFileSync(entries, 'utf8')).toContain(`Host ${alias}-node-0 ${alias}\n`);
    // …until `tender down <run>` confirms it: then the alias names nothing.
    const down = await runCli(['down', run.id], { home, env });
    expect(down.code, down.stderr).toBe(0);
    expect(cloud.machine().isLive).toBe(false);
    expect(readFileSync(entries, 'utf8')).not.toMatch(/^Host /m);
    const after = await user.tender(['ssh-config']);
    expect(after.stdout).not.toMatch(/^Host /m);
    const gone = await user.ssh([alias, 'true']);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toMatch(/Could not resolve hostname|Name or service not known/);
  }, 120_000);
});
