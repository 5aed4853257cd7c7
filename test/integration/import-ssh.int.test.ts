// Imported tasks on the ssh provider (real sshd, one loopback address per host): a SkyPilot
// task and a dstack task converted by `tender import`'s loader run as they are — setup, a
// file from the workspace, and a 2-node run whose command reads SKYPILOT_NODE_RANK /
// DSTACK_NODE_RANK — every rank reporting its own.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TenderCore } from '../../src-main/core/tender-core';
import { loadTaskFile } from '../../src-main/jobs/import/load-task';
import { KNOWN_PROVIDERS } from '../../src-main/providers/known';
import { freePort } from '../helpers/free-port';
import { runOnHosts, sshCore } from '../helpers/ssh-core';
import { startSshd, type SshdFixture } from '../helpers/sshd';

const fixtures: SshdFixture[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

async function hosts(n: number) {
  for (let i = 0; i < n; i++) fixtures.push(await startSshd({ address: `127.0.0.${i + 2}` }));
  const t = sshCore(fixtures.slice(-n));
  closers.push(() => t.close());
  return t;
}

async function runLines(core: TenderCore, runId: string): Promise<string[]> {
  const r = await core.client.invoke('logs.read', { runId, channel: 'agent', limit: 100_000 });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.records.filter((x) => x.source === 'run').map((x) => x.line);
}

/** The task as `tender run task.yaml` loads it, its workdir the task's folder. */
function load(work: string, name: string, text: string) {
  const file = join(work, name);
  writeFileSync(file, text);
  return loadTaskFile(file, { knownProviders: KNOWN_PROVIDERS, env: {}, envFlags: {}, cwd: work });
}

describe('imported tasks on the ssh provider', () => {
  it('a 2-node SkyPilot task: setup once per node, each rank reads SKYPILOT_NODE_RANK', async () => {
    const t = await hosts(2);
    writeFileSync(join(t.work, 'data.txt'), 'from the workspace\n');
    const task = load(
      t.work,
      'task.yaml',
      `name: sky-ranks
workdir: .
num_nodes: 2
envs:
  GREETING: hello
setup: echo "setup on $(hostname)"
run: |
  echo "$GREETING rank $SKYPILOT_NODE_RANK of $SKYPILOT_NUM_NODES; head $(echo "$SKYPILOT_NODE_IPS" | head -n1)"
  cat data.txt
`,
    );
    expect(task.job.distributed).toBe(true);
    const run = await runOnHosts(
      t.core,
      { ...task.job, master_port: await freePort() },
      t.hosts.map((h) => h.name),
    );
    const lines = await runLines(t.core, run.id);
    expect(run.status, `${run.failedReason}\n${lines.join('\n')}`).toBe('completed');
    expect(lines).toContain('hello rank 0 of 2; head 127.0.0.2');
    expect(lines).toContain('hello rank 1 of 2; head 127.0.0.2');
    expect(lines.filter((l) => l === 'from the workspace')).toHaveLength(2);
  });

  it('a 2-node dstack task: commands in order, DSTACK_NODE_RANK and the master address', async () => {
    const t = await hosts(2);
    const task = load(
      t.work,
      '.dstack.yml',
      `type: task
name: dstack-ranks
nodes: 2
env:
  - MODE=train
commands:
  - echo "mode $MODE"
  - echo "rank $DSTACK_NODE_RANK of $DSTACK_NODES_NUM master $DSTACK_MASTER_NODE_IP"
`,
    );
    const run = await runOnHosts(
      t.core,
      { ...task.job, master_port: await freePort() },
      t.hosts.map((h) => h.name),
    );
    const lines = await runLines(t.core, run.id);
    expect(run.status, `${run.failedReason}\n${lines.join('\n')}`).toBe('completed');
    expect(lines.filter((l) => l === 'mode train')).toHaveLength(2);
    expect(lines).toContain('rank 0 of 2 master 127.0.0.2');
    expect(lines).toContain('rank 1 of 2 master 127.0.0.2');
  });
});
