// `tender clusters`: Slurm clusters in clusters.toml — added, listed, removed; bad input
// exits 2 naming the fix.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useTempHomes } from '../helpers/cli';

const newHome = useTempHomes();

describe('tender clusters', () => {
  it('adds, lists and removes a cluster; refuses bad input', async () => {
    const { home } = newHome();
    const added = await runCli(
      [
        'clusters',
        'add',
        'lab',
        'ada@login.lab.edu:2222',
        '--partition',
        'gpu',
        '--account',
        'ml',
        '--gpu-hour-usd',
        '0.5',
      ],
      { home },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('tender run job.toml --provider slurm --cluster lab');
    expect(readFileSync(join(home, 'clusters.toml'), 'utf8')).toMatch(
      /name = "lab"[\s\S]*partition = "gpu"/,
    );
    const list = await runCli(['clusters', 'list', '--json'], { home });
    expect(JSON.parse(list.stdout)).toEqual([
      {
        name: 'lab',
        host: 'login.lab.edu',
        port: 2222,
        user: 'ada',
        identityFile: null,
        partition: 'gpu',
        account: 'ml',
        qos: null,
        gpuHourUsd: 0.5,
        hostKey: null,
      },
    ]);
    expect((await runCli(['clusters', 'list'], { home })).stdout).toMatch(
      /lab +ada@login\.lab\.edu:2222 +gpu +ml/,
    );
    const twice = await runCli(['clusters', 'add', 'lab', 'ada@other'], { home });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/a cluster named "lab" exists/);
    for (const [args, message] of [
      [['clusters', 'add', 'x', 'no-at-sign'], /expected a name and user@login-host/],
      [['clusters', 'add', 'x', 'a@b', '--partition', 'gpu nodes'], /partition: letters, digits/],
      [['clusters', 'add', 'x', 'a@b', '--gpu-hour-usd', 'free'], /gpuHourUsd/],
      [['clusters', 'frob'], /unknown clusters command "frob"/],
    ] as const) {
      const r = await runCli([...args], { home });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect((await runCli(['clusters', 'remove', 'lab'], { home })).code).toBe(0);
    expect((await runCli(['clusters', 'remove', 'lab'], { home })).code).toBe(2);
  });
});
