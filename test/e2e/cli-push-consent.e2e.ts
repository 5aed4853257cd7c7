// What `tender run` pushes only when told: files that look like secrets (`.env`, `id_rsa`),
// and a workdir outside the job file's folder. The built CLI on the local provider.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';

const newHome = useTempHomes();
const JOB = '[job]\nname = "consent"\nrun = "ls -a"\n';

describe('tender run and what it pushes', () => {
  it('refuses .env and id_rsa without a word, naming each and both ways out; --push-secrets pushes them', async () => {
    const { home, root } = newHome();
    const job = writeJob(root, 'proj', JOB, {
      '.env': 'TOKEN=x\n',
      'keys/id_rsa': 'not really\n',
      'train.py': 'print(1)\n',
    });
    const r = await runCli(['run', job], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('2 files look like secrets and would be pushed to the node');
    expect(r.stderr).toContain('.env (matches .env), keys/id_rsa (matches id_rsa)');
    expect(r.stderr).toContain('add /.env, /keys/id_rsa to exclude in [job.workspace]');
    expect(r.stderr).toContain('--push-secrets');

    const ok = await runCli(['run', job, '--push-secrets'], { home });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('.env');
  });

  it('accepts the same folder once the files are excluded or the job file says push_secrets', async () => {
    const { home, root } = newHome();
    const excluded = writeJob(root, 'a', `${JOB}workspace = { exclude = ["/.env"] }\n`, {
      '.env': 'TOKEN=x\n',
    });
    const r = await runCli(['run', excluded], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('.env');
    const chosen = writeJob(root, 'b', `${JOB}workspace = { push_secrets = true }\n`, {
      '.env': 'TOKEN=x\n',
    });
    const again = await runCli(['run', chosen], { home });
    expect(again.code, again.stderr).toBe(0);
  });

  it('refuses workdir = ".." by default, naming the fix; accepts it when chosen', async () => {
    const { home, root } = newHome();
    mkdirSync(join(root, 'parent'), { recursive: true });
    writeFileSync(join(root, 'parent', 'data.txt'), 'd\n');
    const job = writeJob(join(root, 'parent'), 'job', `${JOB}workspace = { workdir = ".." }\n`);
    const r = await runCli(['run', job], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `the workdir ${join(root, 'parent')} is outside the job file's folder`,
    );
    expect(r.stderr).toContain('workdir_outside = true in [job.workspace], or --workdir-outside');

    const ok = await runCli(['run', job, '--workdir-outside'], { home });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('data.txt');
    const keyed = writeJob(
      join(root, 'parent'),
      'job2',
      `${JOB}workspace = { workdir = "..", workdir_outside = true }\n`,
    );
    expect((await runCli(['run', keyed], { home })).code).toBe(0);
  });
});
