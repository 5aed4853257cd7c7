// `tender run --image-login USER@SERVER` against the Vast.ai-shaped fake: the password is
// read from a file (`--secret NAME=@file`), never a flag's value, and a wrong one fails the
// run at once with the login named; one that is missing is refused before anything is
// rented. (The CLI's Vast provider logs in as root, which the fake's nodes are not: a full
// run from a private image is tested in test/integration/vast-image-login.int.test.ts.)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeVast, type FakeVast } from '../fakes/vast';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';
import { defaultOffers } from '../helpers/vast-core';

const newHome = useTempHomes();
const fakes: FakeVast[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.stop();
});

const IMAGE = 'ghcr.io/lab/train:1';
const env = (f: FakeVast) => ({ TENDER_VASTAI_URL: f.url, TENDER_VASTAI_API_KEY: f.apiKey });

describe('tender run --image-login', () => {
  it('a wrong password (from a file) fails at once, naming the login; it reached only the create', async () => {
    const f = await startFakeVast({ offers: defaultOffers(2) });
    fakes.push(f);
    f.registries.addPrivate(IMAGE, 'lab-bot', 'ghp_right');
    const { home, root } = newHome();
    const job = writeJob(root, 'j', '[job]\nname = "j"\nrun = "echo hi"\n');
    const secret = join(root, 'token');
    writeFileSync(secret, 'ghp_wrong\n', { mode: 0o600 });
    const r = await runCli(
      [
        'run',
        job,
        '--provider',
        'vastai',
        '--image',
        IMAGE,
        '--image-login',
        'lab-bot@ghcr.io',
        '--secret',
        `IMAGE_LOGIN_PASSWORD=@${secret}`,
      ],
      { home, env: env(f) },
    );
    expect(r.code, r.stderr).toBe(3); // the run never reached its job
    expect(r.stdout + r.stderr).toContain(
      'ghcr.io refused the login for lab-bot: check IMAGE_LOGIN_PASSWORD',
    );
    expect(f.registries.tried.map((t) => t.login)).toEqual([
      { server: 'ghcr.io', username: 'lab-bot', password: 'ghp_wrong' },
    ]);
    expect(f.state.instances()).toHaveLength(1);
    await f.sync();
    expect(f.state.liveInstances()).toEqual([]);
    expect(r.stdout + r.stderr).not.toContain('ghp_wrong');
  });

  it('no password anywhere: refused before anything is rented, naming the variable', async () => {
    const f = await startFakeVast({ offers: defaultOffers(1) });
    fakes.push(f);
    const { home, root } = newHome();
    const job = writeJob(root, 'j', '[job]\nname = "j"\nrun = "echo hi"\n');
    const r = await runCli(
      ['run', job, '--provider', 'vastai', '--image', IMAGE, '--image-login', 'lab-bot@ghcr.io'],
      { home, env: env(f) },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'image_login for lab-bot@ghcr.io reads $IMAGE_LOGIN_PASSWORD, which is not set, and there is no terminal to ask on',
    );
    expect(f.state.instances()).toEqual([]);
  });

  it('a password on the command line is refused, and not echoed', async () => {
    const { home, root } = newHome();
    const job = writeJob(root, 'j', '[job]\nname = "j"\nrun = "echo hi"\n');
    const r = await runCli(
      [
        'run',
        job,
        '--provider',
        'vastai',
        '--image',
        IMAGE,
        '--image-login',
        'lab-bot:hunter2@ghcr.io',
      ],
      { home },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--image-login takes USER@SERVER');
    expect(r.stderr).not.toContain('hunter2');
  });
});
