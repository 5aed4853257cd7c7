// A distributed run on the Vast fake (real sshd nodes): each instance is created with the
// master port mapped (`-p P:P`), the app hands rank 0's public address and mapped port to
// the others, and the agents check the pair before the gang starts. A mapping that does not
// reach rank 0 stops the gang before anything starts, naming the pair.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port';
import { vastSetups } from '../helpers/vast-setups';

const setup = vastSetups();

const job = (work: string, port: number) => ({
  name: 'vast-gang',
  run: "python3 -c \"import os; print('rank', os.environ['TENDER_NODE_RANK'], os.environ['MASTER_ADDR'], os.environ['MASTER_PORT'])\"",
  workspace: { workdir: work, exclude: [] },
  distributed: true,
  master_port: port,
});

describe('distributed runs on Vast.ai (fake)', () => {
  it('maps the master port at create and hands the mapped address to the other ranks', async () => {
    const { core, fake, work, run } = await setup();
    writeFileSync(join(work, 'hello.txt'), 'hi\n');
    const port = await freePort();
    const view = await run({
      job: job(work, port),
      pool: { provider: 'vastai', count: 2, gpu: 'RTX 4090' },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    for (const i of fake.state.instances()) expect(i.env[`-p ${port}:${port}`]).toBe('1');
    const logs = await core.client.invoke('logs.read', { runId: view.id, channel: 'agent' });
    const said = logs.ok
      ? logs.value.records
          .filter((r) => r.source === 'run')
          .map((r) => r.line)
          .sort()
      : [];
    expect(said).toEqual([`rank 0 127.0.0.1 ${port}`, `rank 1 127.0.0.1 ${port}`]);
  });

  it('a port mapping that does not reach rank 0: the pre-flight names the pair, nothing starts', async () => {
    const { core, fake, work, run } = await setup();
    const port = await freePort();
    fake.faults.mapPortsAway(2);
    const view = await run({
      job: job(work, port),
      pool: { provider: 'vastai', count: 2, gpu: 'RTX 4090' },
    });
    expect(view.status).toBe('failed');
    expect(view.failedReason).toMatch(
      new RegExp(
        `^rank 1 \\(127\\.0\\.0\\.1\\) cannot reach rank 0 at 127\\.0\\.0\\.1:${port + 1} \\(ECONNREFUSED\\): .*port not mapped to rank 0`,
      ),
    );
    const logs = await core.client.invoke('logs.read', { runId: view.id, channel: 'agent' });
    expect(logs.ok && logs.value.records.filter((r) => r.source === 'run')).toEqual([]);
    expect(fake.state.liveInstances()).toEqual([]);
  });
});
