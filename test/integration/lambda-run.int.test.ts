// Lambda Cloud end to end against the faithful fake (real sshd nodes, a real ledger).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { labelPrefix } from '../../src-main/base/ids';
import { lambdaSetup } from '../helpers/lambda-core';
import { until } from '../helpers/wait';

type Setup = Awaited<ReturnType<typeof lambdaSetup>>;
let open: Setup[] = [];
afterEach(async () => {
  for (const s of open) await s.close();
  open = [];
});
async function setup(opts: Parameters<typeof lambdaSetup>[0] = {}) {
  const s = await lambdaSetup(opts);
  open.push(s);
  return s;
}

const job = (work: string) => ({
  name: 'lambda-job',
  run: 'cat hello.txt; mkdir -p out; echo 7 > out/result.txt',
  outputs: ['out/result.txt'],
  workspace: { workdir: work, exclude: [] },
});

describe('Lambda Cloud against the faithful fake (real sshd nodes)', () => {
  it('runs a job on 2 nodes end to end: outputs back, both instances terminated, nothing else created', async () => {
    const { core, fake, work, run } = await setup();

    const view = await run({
      job: job(work),
      pool: { provider: 'lambda', count: 2, gpu: 'A10' },
    });

    expect(view.status, view.failedReason ?? '').toBe('completed');
    const instances = fake.state.instances();
    expect(instances).toHaveLength(2);
    expect(instances.map((i) => i.instanceType)).toEqual(['gpu_1x_a10', 'gpu_1x_a10']);
    expect(fake.state.liveInstances()).toEqual([]);
    const prefix = labelPrefix(core.ledger.installId());
    for (const i of instances) expect(i.name?.startsWith(prefix)).toBe(true);
    expect(fake.state.sshKeys()).toHaveLength(1); // Tender's key, registered once
    const leases = core.ledger.listLeases();
    expect(leases.map((l) => l.state)).toEqual(['destroyed', 'destroyed']);
    for (const l of leases) expect(l.pricePerHour).toBe(0.75);
    for (const n of ['node-0', 'node-1'])
      expect(
        readFileSync(join(core.home, 'runs', view.id, n, 'outputs', 'out', 'result.txt'), 'utf8'),
      ).toBe('7\n');
    const logs = await core.client.invoke('logs.read', { runId: view.id, channel: 'agent' });
    expect(
      logs.ok && logs.value.records.filter((r) => r.source === 'run').map((r) => r.line),
    ).toContain('hello from a Lambda VM');
  });

  it('a launch that launches and then answers 500: exactly one instance per node, none live after', async () => {
    const { core, fake, work, run } = await setup();
    fake.faults.failLaunchAfterCommit(2, 500);

    const view = await run({ job: job(work), pool: { provider: 'lambda', count: 2, gpu: 'A10' } });

    expect(view.status, view.failedReason ?? '').toBe('completed');
    const names = fake.state.instances().map((i) => i.name);
    expect(names).toHaveLength(2);
    expect(new Set(names).size).toBe(2);
    expect(fake.state.liveInstances()).toEqual([]);
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['destroyed', 'destroyed']);
  });

  // The node's half: its switch stops the job, removes the run's files and ends the agent.
  // The app's half: the reopened core's link finds no agent, reads the switch's record from
  // the node's disk, collects nothing (nothing is left) and terminates the instance.
  it('a node whose dead-man switch fires stops its job; the next app on the same home terminates the instance', async () => {
    const s = await setup();
    const { fake, work } = s;
    const started = await s.core.client.invoke('run.start', {
      job: { ...job(work), run: 'sleep 600' },
      pool: { provider: 'lambda', count: 1 },
      policy: { unreachableGraceMs: 1_000, maxDurationMs: 4_000 },
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await s.core.waitJobsStarted(runId);
    const detached = await s.core.client.invoke('run.detach', { runId });
    if (!detached.ok) throw new Error(detached.error.message);
    await s.core.close();

    // With the app away, the node's own switch fires at the max duration: it stops its job
    // and its agent (remove-files). Lambda has no per-instance credential, so the instance
    // itself stays up, and bills, until an app terminates it.
    const [inst] = fake.state.instances();
    const user = inst!.node.user;
    await until(() => !hasProcess(user, 'sleep 600'), 30_000);
    expect(fake.state.liveInstances()).toHaveLength(1);

    const core2 = await s.reopen();
    const due = await core2.client.invoke('run.collectDue', { all: true });
    expect(due.ok && due.value.attached).toEqual([runId]);
    // Bounded so a regression fails fast: the run settles in seconds.
    await Promise.race([
      core2.waitRun(runId),
      new Promise((_, reject) => setTimeout(() => reject(new Error('run never settled')), 25_000)),
    ]);

    await until(() => fake.state.liveInstances().length === 0, 30_000);
    expect(fake.state.instances()).toHaveLength(1);
    const leases = core2.ledger.listLeases();
    expect(leases.map((l) => l.state)).toEqual(['destroyed']);
    // The ledger says what happened: the node stopped its job, Tender ended the billing.
    expect(leases[0]!.reason).toBe(
      'max duration reached: the node stopped its job and removed its files; lease destroyed by Tender',
    );
    const selfTeardown = core2.ledger.journal(runId).find((e) => e.kind === 'lease.self_teardown');
    expect(selfTeardown?.data).toMatchObject({ cause: 'max_duration', state: 'files_removed' });
    const view = await core2.client.invoke('run.get', { runId });
    expect(view.ok && view.value.status).toBe('failed');
    expect(view.ok && view.value.failedReason).toMatch(/max duration/);
  }, 90_000);
});

function hasProcess(user: string, cmd: string): boolean {
  try {
    return execFileSync('pgrep', ['-u', user, '-f', cmd]).toString().trim() !== '';
  } catch {
    return false;
  }
}
