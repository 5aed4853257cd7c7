// The host phases over real sshd on machines you own: bootstrap_script once per machine (a
// marker in the node's cache folder), a failing one failing the node before it joins, and
// the declared host_setup drained before the job's first phase.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TenderCore } from '../../src-main/core/tender-core';
import { runOnHosts, sshJob, useSshHosts } from '../helpers/ssh-core';

const host = useSshHosts();

async function lines(core: TenderCore, runId: string, channel: 'bootstrap' | 'agent') {
  const r = await core.client.invoke('logs.read', { runId, channel });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.records;
}

describe('bootstrap_script (ssh provider, real sshd)', () => {
  it('runs once per machine: a second lease on the same host skips it, a changed script runs', async () => {
    const { f, core, work } = await host();
    const count = join(f.home, 'bootstrapped.txt');
    const job = (script: string) => sshJob(work, { bootstrap_script: script, run: 'echo ran' });
    const script = `echo "bootstrapping in $PWD"; echo once >> ${count}`;

    const first = await runOnHosts(core, job(script), ['h0']);
    expect(first.status, first.failedReason ?? '').toBe('completed');
    const boot1 = (await lines(core, first.id, 'bootstrap')).map((r) => r.line);
    expect(boot1).toContain('bootstrap_script: running it once on this machine');
    expect(boot1.some((l) => /^bootstrapping in .*\/\.tender\/nodes\/tender-/.test(l))).toBe(true);
    expect(readdirSync(join(f.home, '.tender', 'cache', 'bootstrap'))).toHaveLength(1);

    const second = await runOnHosts(core, job(script), ['h0']);
    expect(second.status, second.failedReason ?? '').toBe('completed');
    expect((await lines(core, second.id, 'bootstrap')).map((r) => r.line)).toContain(
      'bootstrap_script already ran on this machine: skipped',
    );
    expect(readFileSync(count, 'utf8')).toBe('once\n');

    const changed = await runOnHosts(core, job(`${script}; echo changed`), ['h0']);
    expect(changed.status, changed.failedReason ?? '').toBe('completed');
    expect(readFileSync(count, 'utf8')).toBe('once\nonce\n');
  });

  it('a failing bootstrap_script fails the node before its agent starts, and marks nothing', async () => {
    const { f, core, work } = await host();
    const run = await runOnHosts(
      core,
      sshJob(work, { bootstrap_script: 'echo "no driver for you" >&2; exit 7' }),
      ['h0'],
    );
    expect(run.status).toBe('failed');
    expect(run.failedReason).toMatch(/boot_check_failed: bootstrap_script exited 7/);
    expect(run.nodes[0]!.stage).toBe('destroyed'); // the boot-failure path, confirmed gone
    const boot = await lines(core, run.id, 'bootstrap');
    expect(boot.some((r) => r.stream === 'stderr' && r.line === 'no driver for you')).toBe(true);
    expect(boot.some((r) => /agent started/.test(r.line))).toBe(false);
    expect(existsSync(join(f.home, '.tender', 'cache', 'bootstrap'))).toBe(false);
  });
});

describe('declared host_setup (ssh provider, real sshd)', () => {
  it('drains before the first phase, each entry in its own section, then setup and run', async () => {
    const { core, work } = await host();
    const run = await runOnHosts(
      core,
      sshJob(work, {
        host_setup: ['echo installing ffmpeg', { script: 'echo warming', name: 'warm' }],
        setup: 'echo setting up',
        run: 'echo running',
      }),
      ['h0'],
    );
    expect(run.status, run.failedReason ?? '').toBe('completed');
    const agent = (await lines(core, run.id, 'agent')).filter((r) => r.source !== 'agent');
    expect(agent.map((r) => `${r.source} ${r.line}`)).toEqual([
      'host_setup host_setup[1] echo installing ffmpeg',
      'host_setup installing ffmpeg',
      'host_setup host_setup[1] echo installing ffmpeg exited with code 0',
      'host_setup host_setup[2] (warm) echo warming',
      'host_setup warming',
      'host_setup host_setup[2] (warm) echo warming exited with code 0',
      'setup setting up',
      'run running',
    ]);
  });

  it('a declared entry that fails fails the job with its command and code, not the node', async () => {
    const { core, work } = await host();
    const run = await runOnHosts(
      core,
      sshJob(work, { host_setup: ['echo ok', 'apt-get-missing install -y ffmpeg; exit 100'] }),
      ['h0'],
    );
    expect(run.status).toBe('failed');
    expect(run.failedReason).toBe(
      'node-0: host_setup[2] `apt-get-missing install -y ffmpeg; exit 100` exited 100',
    );
    // The node had joined: it was torn down as after any job, not as a boot failure.
    expect(run.nodes[0]!.failedReason).toBeNull();
    const agent = await lines(core, run.id, 'agent');
    expect(agent.some((r) => r.source === 'run')).toBe(false);
  });
});
