import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliProcess, EXAMPLES, runCli, useTempHomes } from '../helpers/cli';
import { useLabHosts } from '../helpers/lab-host';
import { leaseFolders } from '../helpers/host-nodes';

const newHome = useTempHomes();
const labHost = useLabHosts(newHome);

function lastJson<T>(stdout: string): T {
  return JSON.parse(stdout.trim().split('\n').pop()!) as T;
}

describe('the CLI with machines you already have', () => {
  it('hosts add/list, a run on the host, an interactive shell into a kept node, and down --all', async () => {
    const { f, home, key } = await labHost();
    const list = await runCli(['hosts', 'list', '--json'], { home });
    expect(JSON.parse(list.stdout)).toEqual([
      {
        name: 'lab',
        host: '127.0.0.1',
        port: f.port,
        user: f.user,
        identityFile: key,
        claimedBy: null,
      },
    ]);

    const run = await runCli(
      ['run', join(EXAMPLES, 'hello', 'tender.toml'), '--hosts', 'lab', '--keep', '--json'],
      { home },
    );
    expect(run.code, run.stderr).toBe(0);
    const out = lastJson<{ runId: string; status: string; nodes: { stage: string }[] }>(run.stdout);
    expect(out).toMatchObject({ status: 'completed', nodes: [{ stage: 'dormant' }] });
    const metrics = JSON.parse(
      readFileSync(
        join(home, 'runs', out.runId, 'node-0', 'outputs', 'out', 'metrics.json'),
        'utf8',
      ),
    );
    expect(metrics.steps).toBe(3000);
    const claimed = await runCli(['hosts', 'list', '--json'], { home });
    expect(JSON.parse(claimed.stdout)[0].claimedBy).toBe(out.runId);

    // An interactive shell in the node's workspace, driven through a pipe.
    const shell = new CliProcess(['ssh', out.runId], { home });
    await shell.waitFor('stderr', /connected to node-0/);
    shell.child.stdin.write('echo "in:$(pwd)"; ls run.sh; exit 7\n');
    const r = await shell.exited;
    expect(r.stdout).toMatch(/in:\/.*\/\.tender\/nodes\/tender-[a-z0-9-]+\/workspace/);
    expect(r.stdout).toContain('run.sh');
    expect(r.code).toBe(1); // the shell's own exit status was not 0

    const down = await runCli(['down', '--all', '--json'], { home });
    expect(down.code, down.stderr).toBe(0);
    expect(lastJson<{ allConfirmed: boolean }>(down.stdout).allConfirmed).toBe(true);
    const remove = await runCli(['hosts', 'remove', 'lab'], { home });
    expect(remove.code, remove.stderr).toBe(0);
  });

  it('a shell into a kept local node runs in its workspace (node-pty)', async () => {
    const { home } = newHome();
    const run = await runCli(['run', join(EXAMPLES, 'hello', 'tender.toml'), '--keep', '--json'], {
      home,
    });
    expect(run.code, run.stderr).toBe(0);
    const { runId } = lastJson<{ runId: string }>(run.stdout);
    const shell = new CliProcess(['ssh', runId, '--node', '0'], { home });
    await shell.waitFor('stderr', /connected to node-0/);
    shell.child.stdin.write('echo "in:$(pwd)"; exit\n');
    const r = await shell.exited;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/in:.*\/local\/leases\/tender-[a-z0-9-]+\/workspace/);
    const down = await runCli(['down', '--all'], { home });
    expect(down.code, down.stderr).toBe(0);
  });

  it('says clearly when a host name is unknown, and changes nothing', async () => {
    const { home } = newHome();
    const r = await runCli(['run', join(EXAMPLES, 'hello', 'tender.toml'), '--hosts', 'nowhere'], {
      home,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tender: unknown host "nowhere"/);
    expect(existsSync(home)).toBe(false);
  });

  it('a persistent setup environment outlives the lease on your own machine: the next run skips setup', async () => {
    const { f, home, root } = await labHost();
    const ws = join(root, 'ws');
    mkdirSync(ws);
    writeFileSync(join(ws, 'requirements.txt'), 'torch==2.5\n');
    writeFileSync(
      join(ws, 'tender.toml'),
      [
        '[job]',
        'name = "env"',
        'setup = "mkdir -p $TENDER_ENV/bin && printf \'#!/bin/sh\\necho tool on the host\\n\' > $TENDER_ENV/bin/tool && chmod +x $TENDER_ENV/bin/tool"',
        'setup_fingerprint = ["requirements.txt"]',
        'run = "tool"',
        '',
      ].join('\n'),
    );
    const first = await runCli(['run', ws, '--hosts', 'lab'], { home });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/building environment [0-9a-f]{16}/);
    expect(first.stdout).toMatch(/tool on the host/);
    // The lease is gone (its folder removed); the host's cache keeps the environment.
    expect(leaseFolders(f.home)).toEqual([]);
    expect(readdirSync(join(f.home, '.tender', 'cache', 'envs'))).toHaveLength(1);
    const second = await runCli(['run', ws, '--hosts', 'lab'], { home });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(
      /setup skipped: environment for `.*` \+ requirements\.txt is ready/,
    );
    expect(second.stdout).toMatch(/tool on the host/);
  });
});
