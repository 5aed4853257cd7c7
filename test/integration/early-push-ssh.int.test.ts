// A fresh node's first push begins once its bootstrap has the runtime and agent in place
// (jobs/node-job/early-push.ts), while the rest of the bootstrap runs, and on a host with
// the cached agent as soon as the connection is up, on a guess the node checks itself
// (nodes/speculative-serve.ts). Over real sshd: a bootstrap_script that waits for the test
// shows the push done before the agent joined; one that fails after the push began ends
// the run with the script's own reason, the lease destroyed (confirmed) and nothing of the
// push left running on the host; boot checks that wait for the pushed file pass only with
// the guess; a cached agent that is not the bundle is never run on it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TenderCore } from '../../src-main/core/tender-core';
import type { SshdFixture } from '../helpers/sshd';
import { runOnHosts, sshJob, useSshHosts } from '../helpers/ssh-core';
import { until } from '../helpers/wait';

const sshHost = useSshHosts();

async function host() {
  const t = await sshHost();
  writeFileSync(join(t.work, 'hello.txt'), 'pushed early\n');
  return t;
}

async function events(core: TenderCore, runId: string): Promise<string[]> {
  const r = await core.client.invoke('logs.read', { runId, channel: 'events' });
  return r.ok ? r.value.records.map((x) => x.line) : [];
}

/** The processes the host's user runs whose command line has `word`. */
function processesOf(f: SshdFixture, word: string): string[] {
  try {
    return execFileSync('pgrep', ['-a', '-u', f.user, '-f', word], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when none matches
  }
}

describe('the first push while the node still boots (ssh provider, real sshd)', () => {
  it('is done before the agent joins: the bootstrap waits on it, the job reads the file', async () => {
    const { f, core, work } = await host();
    const go = join(f.home, 'go');
    // The bootstrap cannot end before the test says so, and the test says so only once
    // the push is done: without an early push this run never gets there.
    const job = sshJob(work, {
      bootstrap_script: `while [ ! -f ${go} ]; do sleep 0.05; done`,
      run: 'cat hello.txt',
    });
    const started = await core.client.invoke('run.start', {
      job,
      pool: { provider: 'ssh', hosts: ['h0'] },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    let seen: string[] = [];
    for (const end = Date.now() + 60_000; !seen.some((l) => l.startsWith('workspace ready:'));) {
      if (Date.now() > end)
        throw new Error(`no push before the bootstrap ended:\n${seen.join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
      seen = await events(core, runId);
    }
    expect(seen).not.toContain('node agent_joined');
    writeFileSync(go, '');
    await core.waitRun(runId);
    const run = core.runView(runId);
    expect(run.status, run.failedReason ?? '').toBe('completed');
    const lines = await events(core, runId);
    expect(lines.indexOf('node agent_joined')).toBeGreaterThan(
      lines.findIndex((l) => l.startsWith('workspace ready:')),
    );
    const out = await core.client.invoke('logs.read', { runId, channel: 'agent' });
    if (!out.ok) throw new Error(out.error.message);
    expect(out.value.records.map((r) => r.line)).toContain('pushed early');
    expect(lines.filter((l) => l.startsWith('pushing workspace:'))).toHaveLength(1); // once
  }, 90_000);

  it('a bootstrap that fails after the push began: the script’s reason, destroyed (confirmed), nothing left on the host', async () => {
    const { f, core, work } = await host();
    // Fails once the pushed file has landed in the node's workspace (the script runs in
    // the node's folder).
    const job = sshJob(work, {
      bootstrap_script: 'while [ ! -f workspace/hello.txt ]; do sleep 0.05; done; exit 7',
    });
    const run = await runOnHosts(core, job, ['h0']);
    expect(run.status).toBe('failed');
    expect(run.failedReason).toMatch(/boot_check_failed: bootstrap_script exited 7/);
    expect(run.nodes[0]!.stage).toBe('destroyed');
    expect(core.ledger.liveLeases()).toEqual([]);
    await until(() => processesOf(f, 'serve-workspace').length === 0, 20_000);
    expect(processesOf(f, 'tender-agent')).toEqual([]);
  }, 90_000);

  it('on a host with the cached agent, begins before the boot checks answer (on a guess the node checks itself)', async () => {
    const { f, core, work } = await host();
    // The first run caches the agent on the host (a first push there cannot guess).
    expect((await runOnHosts(core, sshJob(work), ['h0'])).status).toBe('completed');
    // The boot checks (the pool's verify, run before the bootstrap says the runtime and
    // agent are in place) wait for the pushed file: only a push begun before them lands it.
    const waitForFile =
      'for i in $(seq 300); do [ -f workspace/hello.txt ] && exit 0; sleep 0.05; done; exit 9';
    const started = await core.client.invoke('run.start', {
      job: sshJob(work),
      pool: { provider: 'ssh', hosts: ['h0'], verify: [waitForFile] },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    await core.waitRun(started.value.id);
    const run = core.runView(started.value.id);
    expect(run.status, run.failedReason ?? '').toBe('completed');
    const lines = await events(core, started.value.id);
    expect(lines.filter((l) => l.startsWith('pushing workspace:'))).toHaveLength(1);
    expect(core.ledger.liveLeases()).toEqual([]);
    expect(processesOf(f, 'serve-workspace')).toEqual([]);
  }, 90_000);

  it('a cached agent that is not the bundle (changed on the host) is never run on a guess: the push waits for the checks, which replace it', async () => {
    const { f, core, work } = await host();
    expect((await runOnHosts(core, sshJob(work), ['h0'])).status).toBe('completed');
    const agentDir = join(f.home, '.tender', 'cache', 'agent');
    const [cached] = readdirSync(agentDir);
    const planted = join(f.home, 'planted-ran');
    writeFileSync(
      join(agentDir, cached!),
      `require('fs').writeFileSync(${JSON.stringify(planted)}, 'x');\n`,
    );
    const run = await runOnHosts(core, sshJob(work), ['h0']);
    expect(run.status, run.failedReason ?? '').toBe('completed');
    expect(existsSync(planted)).toBe(false);
    const lines = await events(core, run.id);
    expect(lines.filter((l) => l.startsWith('pushing workspace:'))).toHaveLength(1);
  }, 90_000);
});
