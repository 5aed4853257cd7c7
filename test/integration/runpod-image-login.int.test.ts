// A private image on RunPod (the faithful fake): the login is a container registry auth
// saved for the lease under its label, passed as containerRegistryAuthId on pod create, and
// deleted with the pod — after the run, after a wrong login, after a kill -9 mid-run and
// the next teardown, and (left by a crash before its pod) by the reconciler's sweep. The
// password is nowhere but the fake's own record of what it was sent.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { labelPrefix } from '../../src-main/base/ids';
import { RUNPOD_ENV_FILE, startFakeRunpod } from '../fakes/runpod';
import { agentBundlePath } from '../helpers/agent-bundle';
import { startAppProcess } from '../helpers/app-process';
import { openRunpodCore, runpodSetup } from '../helpers/runpod-core';
import { leaksUnder, watchCommandLines } from '../helpers/secret-leaks';
import { TEST_TIMING } from '../helpers/vast-core';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(opts: Parameters<typeof runpodSetup>[0] = {}) {
  const t = await runpodSetup(opts);
  cleanups.push(() => t.close());
  t.fake.registries.addPrivate(IMAGE, 'lab-bot', PASSWORD);
  return t;
}

const IMAGE = 'ghcr.io/lab/train:1';
const PASSWORD = 'ghp_Rz4Tq8Wn2Ly6Kc9Xm5Vb';

const job = (work: string, run = 'for i in 1 2 3 4 5; do echo "line $i"; done') => ({
  name: 'private-image',
  run,
  workspace: { workdir: work, exclude: [] },
});
const pool = {
  provider: 'runpod',
  count: 1,
  image: IMAGE,
  image_login: { username: 'lab-bot', password_env: 'GHCR_TOKEN' },
};

describe('RunPod: a private image', () => {
  it('runs with the right login; its registry auth is gone after the run; the password is nowhere', async () => {
    const { core, fake, home, work, run } = await setup();
    const watch = watchCommandLines(PASSWORD);
    const view = await run({ job: job(work), pool, secrets: { GHCR_TOKEN: PASSWORD } });
    const cmdlines = watch.stop();

    expect(view.status, view.failedReason ?? '').toBe('completed');
    const out = await core.client.invoke('logs.read', { runId: view.id, channel: 'agent' });
    expect(
      out.ok && out.value.records.filter((r) => r.source === 'run').map((r) => r.line),
    ).toEqual(['line 1', 'line 2', 'line 3', 'line 4', 'line 5']);
    // One auth, named with the lease's label, used by the pod, deleted after it.
    const [pod] = fake.state.pods();
    const auths = fake.state.registryAuths();
    expect(auths.map((a) => [a.name, a.username, a.password])).toEqual([
      [pod!.name, 'lab-bot', PASSWORD],
    ]);
    const create = fake.state.calls().find((c) => c.fields.includes('podFindAndDeployOnDemand'));
    expect((create!.variables.input as Record<string, unknown>).containerRegistryAuthId).toBe(
      auths[0]!.id,
    );
    expect(auths[0]!.deletedAt).not.toBeNull();
    expect(fake.state.livePods()).toEqual([]);
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['destroyed']);
    expect(cmdlines).toEqual([]);
    expect(existsSync(join(home, 'runs', view.id, 'node-0', 'receipt.json'))).toBe(true);
    expect(leaksUnder(home, PASSWORD)).toEqual([]);
  });

  it('a wrong login fails the run at once, naming it; pod and registry auth are both gone', async () => {
    const { core, fake, work, run } = await setup({ timing: { endpointDeadlineMs: 600_000 } });
    const view = await run({ job: job(work), pool, secrets: { GHCR_TOKEN: 'ghp_revoked' } });

    expect(view.status).toBe('failed');
    expect(view.failedReason).toContain('ghcr.io refused the login for lab-bot: check GHCR_TOKEN');
    expect(fake.state.pods()).toHaveLength(1); // no other host tried
    expect(fake.state.livePods()).toEqual([]);
    expect(fake.state.registryAuths().map((a) => a.deletedAt !== null)).toEqual([true]);
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['destroyed']);
  });

  it('a login left by a crash before its pod is removed by the next reconcile; others are not touched', async () => {
    const fake = await startFakeRunpod();
    cleanups.push(() => fake.stop());
    const root = mkdtempSync(join(tmpdir(), 'tender-runpod-auth-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const home = join(root, 'home');
    const first = openRunpodCore(fake, home, { reconcile: false }).core;
    const prefix = labelPrefix(first.ledger.installId());
    await first.close();
    // What a crash between the save and the pod create leaves: an auth under the label.
    const save = (name: string) =>
      fetch(`${fake.url}/graphql`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${fake.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          query:
            'mutation S($input: SaveRegistryAuthInput!) { saveRegistryAuth(input: $input) { id name } }',
          variables: { input: { name, username: 'lab-bot', password: PASSWORD } },
        }),
      });
    await save(`${prefix}r-crashed00-node-0`);
    await save('my-dockerhub'); // the person's own: never Tender's to remove

    const { core } = openRunpodCore(fake, home);
    cleanups.push(() => core.close());
    await until(() => fake.state.registryAuths().some((a) => a.deletedAt !== null));

    expect(fake.state.registryAuths().map((a) => [a.name, a.deletedAt !== null])).toEqual([
      [`${prefix}r-crashed00-node-0`, true],
      ['my-dockerhub', false],
    ]);
    const journal = core.ledger.journal().filter((j) => j.kind === 'leftover.removed');
    expect(journal.map((j) => (j.data as { provider: string }).provider)).toEqual(['runpod']);
  });

  it('after a kill -9 mid-run, the next teardown removes the pod and its registry auth', async () => {
    const fake = await startFakeRunpod();
    cleanups.push(() => fake.stop());
    fake.registries.addPrivate(IMAGE, 'lab-bot', PASSWORD);
    const root = mkdtempSync(join(tmpdir(), 'tender-runpod-kill-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const home = join(root, 'home');
    const work = join(root, 'work');
    mkdirSync(work, { recursive: true });
    // The app reads the password from its environment (never its command line).
    process.env.GHCR_TOKEN = PASSWORD;
    cleanups.push(() => void delete process.env.GHCR_TOKEN);
    const app = await startAppProcess(fake, {
      home,
      vastUrl: '',
      runpodUrl: fake.url,
      apiKey: fake.apiKey,
      agentBundle: agentBundlePath(),
      timing: TEST_TIMING,
      containerEnvFiles: [`~/${RUNPOD_ENV_FILE}`],
      run: { job: job(work, 'echo started; sleep 60'), pool },
    });
    cleanups.push(() => app.stop());
    await app.waitFor((l) => l.event === 'node' && l.jobPhase === 'run', 90_000);
    app.child.kill('SIGKILL');
    await app.exited;
    expect(fake.state.livePods()).toHaveLength(1);
    expect(fake.state.registryAuths().filter((a) => a.deletedAt === null)).toHaveLength(1);

    // The next look: a core on the same data folder (its reconcile keeps the live lease's
    // login), then tear down all.
    delete process.env.GHCR_TOKEN;
    const { core } = openRunpodCore(fake, home);
    cleanups.push(() => core.close());
    const down = await core.client.invoke('lease.destroyAll', { leases: true, orphans: true });
    expect(down.ok && down.value.allConfirmed).toBe(true);
    expect(fake.state.livePods()).toEqual([]);
    expect(fake.state.registryAuths().map((a) => a.deletedAt !== null)).toEqual([true]);
    expect(leaksUnder(home, PASSWORD)).toEqual([]);
  });
});

async function until(pred: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The watch can see a command line that holds the password (the check can fail).
it('the command-line watch sees a password on a command line', async () => {
  const control = watchCommandLines(PASSWORD);
  await new Promise((r) => spawn('sh', ['-c', 'sleep 0.2', PASSWORD]).once('exit', r));
  expect(control.stop()).toHaveLength(1);
});
