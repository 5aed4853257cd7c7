// Distributed runs on the local provider (real agents, a real ledger): a lost rank with
// [recovery] restarts the whole gang — the healthy ranks stop and start again with it as a
// new attempt, never a half gang; without [recovery] it fails the run and stops the others.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobSpecInput, RunView } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { freePort } from '../helpers/free-port';
import { runView, useLocalHomes } from '../helpers/local-cores';
import { eventuallyAsync } from '../helpers/wait';

const localHome = useLocalHomes('tender-gang-');

async function lines(core: TenderCore, runId: string, channel: 'agent' | 'events') {
  const out = await core.client.invoke('logs.read', { runId, channel, limit: 100_000 });
  return out.ok ? out.value.records : [];
}

async function start(core: TenderCore, job: JobSpecInput): Promise<RunView> {
  const r = await core.client.invoke('run.start', {
    job,
    pool: { provider: 'local', count: 2, verify: [] },
  });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const RUN =
  'echo "rank $TENDER_NODE_RANK attempt $TENDER_ATTEMPT"; if [ "$TENDER_ATTEMPT" = 0 ]; then sleep 60; fi';

async function loseRank1(core: TenderCore, home: string, runId: string) {
  await eventuallyAsync(async () => {
    const said = (await lines(core, runId, 'agent')).map((r) => r.line);
    return said.includes('rank 0 attempt 0') && said.includes('rank 1 attempt 0');
  });
  const label = core.ledger.nodesOfRun(runId).find((n) => n.logicalId === 'node-1')!.label;
  execFileSync('pkill', ['-KILL', '-f', label]);
  rmSync(join(home, 'local', 'leases', label), { recursive: true, force: true });
}

describe('distributed runs (local provider)', () => {
  it('a lost rank restarts the whole gang ([recovery] node_lost)', async () => {
    const { open, work, home } = localHome();
    const core = open();
    const run = await start(core, {
      name: 'gang',
      run: RUN,
      distributed: true,
      master_port: await freePort(),
      workspace: { workdir: work, exclude: [] },
      recovery: { max_restarts: 1, on: ['node_lost'] },
    });
    await loseRank1(core, home, run.id);
    await core.waitRun(run.id);
    const v = await runView(core, run.id);
    const ev = (await lines(core, run.id, 'events')).map((r) => r.line).join('\n');
    expect(v.status, `${v.failedReason}\n${ev}`).toBe('completed');
    const said = (await lines(core, run.id, 'agent'))
      .filter((r) => r.source === 'run')
      .map((r) => r.line);
    expect([...said].sort()).toEqual([
      'rank 0 attempt 0',
      'rank 0 attempt 1',
      'rank 1 attempt 0',
      'rank 1 attempt 1',
    ]);
    expect(ev).toMatch(/rank 1 was lost \(.*\): the whole gang restarts/);
  });

  it('without [recovery] a lost rank fails the run and the other rank is stopped', async () => {
    const { open, work, home } = localHome();
    const core = open();
    const run = await start(core, {
      name: 'gang',
      run: RUN,
      distributed: true,
      master_port: await freePort(),
      workspace: { workdir: work, exclude: [] },
    });
    await loseRank1(core, home, run.id);
    await core.waitRun(run.id);
    const v = await runView(core, run.id);
    expect(v.status).toBe('failed');
    expect(v.failedReason).toMatch(/^rank 1 failed \(the lease is gone/);
    expect(v.nodes.map((n) => n.stage)).toEqual(['destroyed', 'destroyed']);
  });

  it('stop = "rank0": the run ends with rank 0, the other rank is stopped', async () => {
    const { open, work } = localHome();
    const core = open();
    const run = await start(core, {
      name: 'gang',
      run: 'echo "rank $TENDER_NODE_RANK"; if [ "$TENDER_NODE_RANK" != 0 ]; then sleep 60; fi',
      distributed: true,
      stop: 'rank0',
      master_port: await freePort(),
      workspace: { workdir: work, exclude: [] },
    });
    await core.waitRun(run.id);
    const v = await runView(core, run.id);
    expect(v.status, v.failedReason ?? '').toBe('completed');
    const byNode = Object.fromEntries(v.nodes.map((n) => [n.logicalId, n]));
    expect(byNode['node-0']!.exitCode).toBe(0);
    expect(byNode['node-1']!.jobStatus).toBe('cancelled');
    expect((await lines(core, run.id, 'events')).map((r) => r.line).join('\n')).toMatch(
      /rank 0 ended: the other ranks are stopped/,
    );
  });
});
