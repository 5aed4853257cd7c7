// A private image on Vast.ai (the faithful fake): the registry login goes in the create's
// `image_login`, and nowhere else — not the ledger file, a log, a receipt, or any process's
// command line while the run goes on. A wrong login fails the run at once, named as the
// registry's refusal (not a boot timeout, not a host to replace).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaksUnder, watchCommandLines } from '../helpers/secret-leaks';
import { vastSetups } from '../helpers/vast-setups';

const setup = vastSetups();

const IMAGE = 'ghcr.io/lab/train:1';
const PASSWORD = 'ghp_Vq7Lm2Xc9Rt4Kw8Zp3Nb';

const job = (work: string) => ({
  name: 'private-image',
  run: 'for i in 1 2 3 4 5; do echo "line $i"; done',
  workspace: { workdir: work, exclude: [] },
});
const pool = {
  provider: 'vastai',
  count: 1,
  image: IMAGE,
  image_login: { username: 'lab-bot', password_env: 'GHCR_TOKEN' },
};

describe('Vast.ai: a private image', () => {
  it('runs with the right login, sent as image_login and found nowhere else', async () => {
    // The watch sees a command line that holds the password (the check can fail).
    const control = watchCommandLines(PASSWORD);
    await new Promise((r) => spawn('sh', ['-c', 'sleep 0.2', PASSWORD]).once('exit', r));
    expect(control.stop()).toHaveLength(1);

    const { core, fake, home, work, run } = await setup();
    fake.registries.addPrivate(IMAGE, 'lab-bot', PASSWORD);
    const watch = watchCommandLines(PASSWORD);
    const view = await run({ job: job(work), pool, secrets: { GHCR_TOKEN: PASSWORD } });
    const cmdlines = watch.stop();

    expect(view.status, view.failedReason ?? '').toBe('completed');
    const out = await core.client.invoke('logs.read', { runId: view.id, channel: 'agent' });
    expect(
      out.ok && out.value.records.filter((r) => r.source === 'run').map((r) => r.line),
    ).toEqual(['line 1', 'line 2', 'line 3', 'line 4', 'line 5']);
    // What the fake was sent: the login, as docker login's arguments.
    expect(fake.registries.tried).toEqual([
      {
        image: IMAGE,
        login: { server: 'ghcr.io', username: 'lab-bot', password: PASSWORD },
        accepted: true,
      },
    ]);
    expect(fake.state.liveInstances()).toEqual([]);
    const lease = core.ledger.listLeases()[0]!;
    expect(lease.state).toBe('destroyed');
    // What the ledger keeps of the login: its name and the variable's, never the value.
    expect(core.ledger.getNode(lease.nodeId!)?.lease?.metadata).toMatchObject({
      image_login: 'lab-bot@ghcr.io',
      image_login_env: 'GHCR_TOKEN',
    });
    // The receipt is among the files searched below.
    expect(existsSync(join(home, 'runs', view.id, 'node-0', 'receipt.json'))).toBe(true);
    expect(cmdlines).toEqual([]);
    // The ledger's file bytes, the datastream's logs, the receipt: every file Tender wrote.
    expect(leaksUnder(home, PASSWORD)).toEqual([]);
  });

  it('a wrong login fails the run at once, naming the login; the instance is destroyed, none other rented', async () => {
    // A deadline that would hold the test far past its timeout: the failure must come first.
    const { core, fake, work, run } = await setup({ timing: { endpointDeadlineMs: 600_000 } });
    fake.registries.addPrivate(IMAGE, 'lab-bot', PASSWORD);

    const view = await run({ job: job(work), pool, secrets: { GHCR_TOKEN: 'ghp_stale' } });

    expect(view.status).toBe('failed');
    expect(view.failedReason).toContain('ghcr.io refused the login for lab-bot: check GHCR_TOKEN');
    expect(fake.state.instances()).toHaveLength(1); // no other host tried
    expect(fake.state.liveInstances()).toEqual([]);
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['destroyed']);
  });

  it('a private image without a login fails at once, saying it needs one', async () => {
    const { fake, work, run } = await setup({ timing: { endpointDeadlineMs: 600_000 } });
    fake.registries.addPrivate(IMAGE, 'lab-bot', PASSWORD);
    const view = await run({ job: job(work), pool: { provider: 'vastai', image: IMAGE } });
    expect(view.status).toBe('failed');
    expect(view.failedReason).toContain(`the registry refused to pull ${IMAGE} without a login`);
    expect(fake.state.instances()).toHaveLength(1);
    expect(fake.state.liveInstances()).toEqual([]);
  });

  it('a login whose password was given nowhere is refused before anything is rented', async () => {
    const { core, fake, work } = await setup();
    const started = await core.client.invoke('run.start', {
      job: job(work),
      pool: { ...pool, image_login: { username: 'lab-bot', password_env: 'NOT_SET_ANYWHERE_X' } },
    });
    expect(started.ok).toBe(false);
    if (started.ok) return;
    expect(started.error.message).toBe(
      'image_login for lab-bot@ghcr.io reads $NOT_SET_ANYWHERE_X, which is not set where Tender runs',
    );
    expect(fake.state.instances()).toEqual([]);
  });
});
