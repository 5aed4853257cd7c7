// Outputs nobody collected on a Vast.ai node (the faithful fake, real sshd nodes): past
// `collect_grace` the node's switch stops its instance with its own key instead of
// destroying the outputs with it (a stopped instance bills storage only); the next Tender
// that looks starts it, its agent again, collects and destroys it (confirmed). When the
// machine's GPUs went to someone else meanwhile, the lease stays stopped and Tender says
// what it costs and how to destroy it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandInput } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { openVastCore, vastSetup } from '../helpers/vast-core';
import { until } from '../helpers/wait';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const GRACE_MS = 1_500;

const job = (work: string): CommandInput<'run.start'> => ({
  job: {
    name: 'unattended',
    run: 'echo training; mkdir -p out; echo 42 > out/result.txt',
    outputs: ['out/result.txt'],
    workspace: { workdir: work, exclude: [] },
  },
  pool: { provider: 'vastai', count: 1, gpu: 'RTX 4090' },
  keep: false,
  policy: { unreachableGraceMs: GRACE_MS, collectGraceMs: GRACE_MS },
});

/** Starts the run, detaches, and closes the core: nobody is there when the job ends. */
async function startAndLeave(core: TenderCore, input: CommandInput<'run.start'>) {
  const started = await core.client.invoke('run.start', input);
  if (!started.ok) throw new Error(started.error.message);
  await core.waitJobsStarted(started.value.id);
  const detached = await core.client.invoke('run.detach', { runId: started.value.id });
  if (!detached.ok) throw new Error(detached.error.message);
  await core.close();
  return started.value.id;
}

async function setUp() {
  const v = await vastSetup();
  cleanups.push(() => v.close());
  const runId = await startAndLeave(v.core, job(v.work));
  const [inst] = v.fake.state.instances();
  // The switch fires once the job has ended and the grace has passed: it stops, with the
  // instance's own key; the instance and its disk stay.
  await until(() => v.fake.state.instances()[0]!.actualStatus === 'stopped', 60_000);
  await until(() => v.fake.state.billing(inst!.id).byState.stopped > 0, 20_000);
  expect(v.fake.state.liveInstances()).toHaveLength(1);
  expect(v.fake.state.destroyLog()).toEqual([]);
  const stop = v.fake.state
    .calls()
    .find((c) => c.method === 'PUT' && (c.body as { state?: string } | null)?.state === 'stopped');
  expect(stop?.key).toBe('instance'); // CONTAINER_API_KEY: the account key never left the app
  return { ...v, runId, instanceId: inst!.id };
}

describe('uncollected outputs on Vast.ai', () => {
  it('the node stops itself instead of destroying them; the next Tender starts it, collects them and destroys it', async () => {
    const v = await setUp();
    const { core } = openVastCore(v.fake, v.home, { reconcile: false });
    cleanups.push(() => core.close());
    await core.reconciler!.tick('start', true); // lists the lease: stopped
    const stoppedLease = core.ledger.getLease(core.ledger.nodesOfRun(v.runId)[0]!.label)!;
    expect(stoppedLease.interruption).toBe('stopped');
    // Billed as storage only from the pass that saw it stopped.
    expect(stoppedLease.rates.at(-1)!.perHour).toBeLessThan(stoppedLease.pricePerHour! / 10);

    const due = await core.client.invoke('run.collectDue', {});
    expect(due.ok && due.value).toEqual({ attached: [v.runId], stopped: [] });
    await core.waitRun(v.runId);
    const run = core.runView(v.runId);
    expect(run.status, run.failedReason ?? '').toBe('completed');
    const result = join(run.outputsDir, 'node-0', 'outputs', 'out', 'result.txt');
    expect(readFileSync(result, 'utf8')).toBe('42\n');
    // One instance in all; destroyed by the app, confirmed, after the collection.
    expect(v.fake.state.instances()).toHaveLength(1);
    expect(v.fake.state.liveInstances()).toEqual([]);
    expect(v.fake.state.destroyLog().map((d) => d.by)).toEqual(['account']);
    const kinds = core.ledger.journal(v.runId).map((e) => e.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(['lease.starting', 'lease.start_requested', 'lease.started']),
    );
    const agent = await core.client.invoke('logs.read', { runId: v.runId, channel: 'agent' });
    const lines = agent.ok ? agent.value.records.map((r) => r.line).join('\n') : '';
    expect(lines).toMatch(/asking Vast\.ai to stop instance/);
    expect(lines).toMatch(/started again after stopping for its uncollected outputs/);
  });

  it('a machine whose GPUs were rented meanwhile: the lease stays stopped, and Tender says what it costs and how to destroy it', async () => {
    const v = await setUp();
    v.fake.faults.gpusTakenOnStart();
    const { core } = openVastCore(v.fake, v.home, {
      reconcile: false,
      timing: { endpointDeadlineMs: 2_000 },
    });
    cleanups.push(() => core.close());
    await core.reconciler!.tick('start', true);
    const due = await core.client.invoke('run.collectDue', {});
    if (!due.ok) throw new Error(due.error.message);
    expect(due.value.attached).toEqual([]);
    const [stopped] = due.value.stopped;
    expect(stopped).toMatchObject({ runId: v.runId, leaseId: `vastai:${v.instanceId}` });
    expect(stopped!.reason).toMatch(/starting it again failed: .*GPUs are probably rented/);
    expect(stopped!.reason).toMatch(/bills storage only while stopped \(\$\d/);
    expect(stopped!.reason).toContain(`tender down vastai:${v.instanceId}`);
    expect(v.fake.state.liveInstances()).toHaveLength(1); // nothing was destroyed unasked
    expect(core.ledger.journal(v.runId).map((e) => e.kind)).toContain('lease.start_failed');

    const down = await core.client.invoke('lease.destroyAll', {});
    expect(down.ok).toBe(true);
    await until(() => v.fake.state.liveInstances().length === 0, 30_000);
  });
});
