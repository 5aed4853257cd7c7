// Unattended runs on the local provider (real agent processes, a real ledger): the app
// going away never stops a running job; its uncollected outputs wait the collect grace;
// the next Tender that looks collects them and the whole log.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandInput } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { runView as view, useLocalHomes } from '../helpers/local-cores';
import { until } from '../helpers/wait';

const setup = useLocalHomes('tender-unattended-');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A job that prints `tick 1` … `tick N` every 0.2 s and writes out/done.txt at its end. */
const ticker = (work: string, n: number, policy: CommandInput<'run.start'>['policy']) => ({
  job: {
    name: 'overnight',
    run: `for i in $(seq 1 ${n}); do echo "tick $i"; sleep 0.2; done; mkdir -p out; echo ok > out/done.txt`,
    outputs: ['out/done.txt'],
    workspace: { workdir: work, exclude: [] },
  },
  pool: { provider: 'local', count: 1, verify: [] },
  keep: false,
  policy,
});

async function startDetached(core: TenderCore, input: CommandInput<'run.start'>) {
  const started = await core.client.invoke('run.start', input);
  if (!started.ok) throw new Error(started.error.message);
  await core.waitJobsStarted(started.value.id);
  const detached = await core.client.invoke('run.detach', { runId: started.value.id });
  if (!detached.ok) throw new Error(detached.error.message);
  return started.value.id;
}

async function jobLines(core: TenderCore, runId: string): Promise<string[]> {
  const out = await core.client.invoke('logs.read', { runId, channel: 'agent', limit: 100_000 });
  return out.ok ? out.value.records.filter((r) => r.source === 'run').map((r) => r.line) : [];
}

describe('unattended runs', () => {
  it('a job outlives the app far past the unreachable grace; the next Tender collects it whole', async () => {
    const { open, close, work } = setup();
    const core1 = open();
    // 25 ticks × 0.2 s ≈ 5 s with nobody attached, against a 1 s unreachable grace.
    const runId = await startDetached(
      core1,
      ticker(work, 25, { unreachableGraceMs: 1_000, collectGraceMs: 60_000 }),
    );
    await close(core1);
    await sleep(7_000); // the job has ended, and the grace has passed twice over since

    const core2 = open();
    const due = await core2.client.invoke('run.collectDue', {});
    expect(due.ok && due.value.attached).toEqual([runId]);
    await core2.waitRun(runId);
    const v = await view(core2, runId);
    expect(v.status, v.failedReason ?? '').toBe('completed');
    expect(v.nodes[0]!.stage).toBe('destroyed');
    const lines = await jobLines(core2, runId);
    expect(lines).toEqual(Array.from({ length: 25 }, (_, i) => `tick ${i + 1}`));
    const done = join(v.outputsDir, 'node-0', 'outputs', 'out', 'done.txt');
    expect(readFileSync(done, 'utf8')).toBe('ok\n');
  });

  it('past the collect grace, a machine that does not bill keeps the outputs for the next Tender', async () => {
    const { open, close, work } = setup();
    const core1 = open();
    const runId = await startDetached(
      core1,
      ticker(work, 3, { unreachableGraceMs: 1_000, collectGraceMs: 1_500 }),
    );
    await close(core1);
    await sleep(5_000); // job ≈ 0.6 s, then the collect grace: the switch has fired

    const core2 = open();
    // The node's switch fired and kept the outputs, its agent waiting for a Tender.
    const dir = core2.ledger
      .nodesOfRun(runId)[0]!
      .agent!.address.dirWord.replace(/^['"]|['"]$/g, '');
    const record = JSON.parse(readFileSync(join(dir, 'teardown.json'), 'utf8')) as {
      cause: string;
      state: string;
    };
    expect(record).toMatchObject({ cause: 'uncollected', state: 'outputs_kept' });
    expect(existsSync(join(dir, 'workspace', 'out', 'done.txt'))).toBe(true);
    const due = await core2.client.invoke('run.collectDue', {});
    expect(due.ok && due.value.attached).toEqual([runId]);
    await core2.waitRun(runId);
    const v = await view(core2, runId);
    expect(v.status, v.failedReason ?? '').toBe('completed');
    expect(existsSync(join(v.outputsDir, 'node-0', 'outputs', 'out', 'done.txt'))).toBe(true);
    expect(v.nodes[0]!.stage).toBe('destroyed');
  });

  it('a node whose switch removed its files and ended its agent: the next look destroys it, collecting nothing', async () => {
    const { open, close, work } = setup();
    const core1 = open();
    // 200 ticks ≈ 40 s: the switch fires at the max duration, long before the job would end.
    const runId = await startDetached(
      core1,
      ticker(work, 200, { unreachableGraceMs: 60_000, maxDurationMs: 3_000 }),
    );
    const dir = core1.ledger
      .nodesOfRun(runId)[0]!
      .agent!.address.dirWord.replace(/^['"]|['"]$/g, '');
    await close(core1);
    const teardown = join(dir, 'teardown.json');
    await until(
      () => existsSync(teardown) && readFileSync(teardown, 'utf8').includes('files_removed'),
      30_000,
    );
    expect(existsSync(join(dir, 'workspace'))).toBe(false);

    // No agent answers there any more: its record on the node's disk says why.
    const core2 = open();
    const due = await core2.client.invoke('run.collectDue', {});
    expect(due.ok && due.value.attached).toEqual([runId]);
    await core2.waitRun(runId);
    const v = await view(core2, runId);
    expect(v.status).toBe('failed');
    expect(v.failedReason).toMatch(/max duration/);
    expect(v.nodes[0]!.stage).toBe('destroyed');
    const [lease] = core2.ledger.leasesOfRun(runId);
    expect(lease?.state).toBe('destroyed');
    // A machine that does not bill: removing the run's files was its teardown.
    expect(lease?.reason).toBe('destroyed by its own dead-man switch: max duration reached');
    expect(existsSync(dir)).toBe(false);
  });

  it('a run whose job still runs is not picked up by a look (only by a driver that asks for all)', async () => {
    const { open, work } = setup();
    const core1 = open();
    const runId = await startDetached(core1, ticker(work, 50, { unreachableGraceMs: 60_000 }));
    const due = await core1.client.invoke('run.collectDue', {});
    expect(due.ok && due.value.attached).toEqual([]);
    const all = await core1.client.invoke('run.collectDue', { all: true });
    expect(all.ok && all.value.attached).toEqual([runId]);
    await core1.waitRun(runId);
    expect((await view(core1, runId)).status).toBe('completed');
  });
});
