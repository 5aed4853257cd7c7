// Image pulls on the Vast.ai and RunPod fakes (real sshd nodes, the built agent), with the
// minutes of a slow pull skipped on one clock shared by the fake and the core (JumpClock):
// a pull that keeps moving for 25 minutes is waited for and the run completes, past the
// 15-minute endpoint deadline; one that stalls is given up after its window, destroyed
// (confirmed), remembered, and the run goes on on another host. The ledger and the fake
// agree, and nothing is left live.
import { afterEach, describe, expect, it } from 'vitest';
import type { TenderCore } from '../../src-main/core/tender-core';
import { failedHostsPath, readFailedHosts } from '../../src-main/providers/vastai/failed-hosts';
import { JumpClock } from '../helpers/jump-clock';
import { runpodSetup } from '../helpers/runpod-core';
import { vastSetups } from '../helpers/vast-setups';

const MIN = 60_000;
/** The production deadline for a lease that says nothing, not the tests' short one. */
const PRODUCTION_DEADLINE = { endpointDeadlineMs: 15 * MIN };
/** A minute of the shared clock between two looks at a lease (TEST_TIMING looks every
 *  150 ms): a 25-minute pull in 25 looks. */
const STEP_MS = MIN;

const vastSetup = vastSetups();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const job = (work: string) => ({
  name: 'pull-job',
  run: 'cat hello.txt; mkdir -p out; echo 7 > out/result.txt',
  outputs: ['out/result.txt'],
  workspace: { workdir: work, exclude: [] },
});

async function eventLines(core: TenderCore, runId: string): Promise<string[]> {
  const logs = await core.client.invoke('logs.read', { runId, channel: 'events' });
  if (!logs.ok) throw new Error(logs.error.message);
  return logs.value.records.map((r) => r.line);
}

/** The GB figures of the pull lines in the node's event stream, in order. */
function pulledGb(lines: string[]): number[] {
  return lines
    .filter((l) => l.startsWith('node lease_created:'))
    .map((l) => /(\d+\.\d+)GB\/15GB/.exec(l)?.[1])
    .filter((g): g is string => g !== undefined)
    .map(Number);
}

describe('Vast.ai: image pulls', () => {
  it('a 15 GB pull that moves slowly for 25 minutes is waited for, and the run completes', async () => {
    const clock = new JumpClock();
    const { core, fake, work, run } = await vastSetup({ clock, timing: PRODUCTION_DEADLINE });
    clock.stepOnLookup(core.providers.get('vastai'), STEP_MS);
    fake.faults.nextInstancePull({ sizeGb: 15, gbPerMin: 0.6 });
    const view = await run({ job: job(work), pool: { provider: 'vastai', count: 1 } });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    const [inst, ...others] = fake.state.instances();
    expect(others).toEqual([]); // waited for: never given up
    expect(inst!.destroyedAt! - inst!.createdAt).toBeGreaterThan(25 * MIN);
    // Its progress reached the node's stage line as it went.
    const gb = pulledGb(await eventLines(core, view.id));
    expect(gb.length).toBeGreaterThanOrEqual(10);
    expect(gb).toEqual([...gb].sort((a, b) => a - b));
    expect(gb.at(-1)).toBeGreaterThan(12);
    expect(fake.state.liveInstances()).toEqual([]);
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['destroyed']);
  });

  it('a pull that stalls is given up after its window; the run goes on on another host', async () => {
    const clock = new JumpClock();
    const { core, fake, work, run, home } = await vastSetup({
      clock,
      timing: PRODUCTION_DEADLINE,
    });
    clock.stepOnLookup(core.providers.get('vastai'), STEP_MS);
    // Stuck at 12 GB (20 min in); pull_stall 5m, so the silent bound (15 min) is past.
    fake.faults.nextInstancePull({ sizeGb: 15, gbPerMin: 0.6, stallAtGb: 12 });
    const view = await run({
      job: job(work),
      pool: { provider: 'vastai', count: 1, pull_stall: '5m' },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    const [stalled, next, ...none] = fake.state.instances();
    expect(none).toEqual([]);
    expect(String(next!.view.machine_id)).not.toBe(String(stalled!.view.machine_id));
    // Given up 5 minutes (give or take a look) after its last move at 20 minutes.
    const waited = stalled!.destroyedAt! - stalled!.createdAt;
    expect(waited).toBeGreaterThanOrEqual(25 * MIN);
    expect(waited).toBeLessThan(28 * MIN);
    expect(next!.createdAt).toBeGreaterThanOrEqual(stalled!.destroyedAt!); // confirmed first
    const failed = core.ledger.journal(view.id).find((e) => e.kind === 'lease.boot_failed');
    expect(failed?.data.reason).toMatch(
      /^endpoint: its image pull stalled: no progress for [56] min \(last said: "loading: .*12\.00GB\/15GB"\)$/,
    );
    expect(readFailedHosts(failedHostsPath(home)).map((h) => h.machineId)).toEqual([
      String(stalled!.view.machine_id),
    ]);
    expect(fake.state.liveInstances()).toEqual([]);
    expect(core.ledger.listLeases().map((l) => [l.leaseId, l.state])).toEqual(
      fake.state.instances().map((i) => [`vastai:${i.id}`, 'destroyed']),
    );
  });
});

async function runpod(clock: JumpClock) {
  const t = await runpodSetup({ clock, timing: PRODUCTION_DEADLINE });
  closers.push(() => t.close());
  clock.stepOnLookup(t.core.providers.get('runpod'), STEP_MS);
  return t;
}

describe('RunPod: image pulls', () => {
  it('a pod pulling slowly for 25 minutes is waited for, and the run completes', async () => {
    const clock = new JumpClock();
    const { core, fake, work, run } = await runpod(clock);
    fake.faults.nextPodPull({ sizeGb: 15, gbPerMin: 0.6 });
    const view = await run({ job: job(work), pool: { provider: 'runpod', count: 1 } });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    const [pod, ...others] = fake.state.pods();
    expect(others).toEqual([]);
    expect(pod!.terminatedAt! - pod!.createdAt).toBeGreaterThan(25 * MIN);
    expect(pulledGb(await eventLines(core, view.id)).length).toBeGreaterThanOrEqual(10);
    expect(fake.state.livePods()).toEqual([]);
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['destroyed']);
  });

  it('a pod whose pull stalls is terminated after its window, and another pod runs the job', async () => {
    const clock = new JumpClock();
    const { core, fake, work, run } = await runpod(clock);
    fake.faults.nextPodPull({ sizeGb: 15, gbPerMin: 0.6, stallAtGb: 12 });
    const view = await run({
      job: job(work),
      pool: { provider: 'runpod', count: 1, pull_stall: '5m' },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    const [stalled, next, ...none] = fake.state.pods();
    expect(none).toEqual([]);
    const waited = stalled!.terminatedAt! - stalled!.createdAt;
    expect(waited).toBeGreaterThanOrEqual(25 * MIN);
    expect(waited).toBeLessThan(28 * MIN);
    expect(next!.createdAt).toBeGreaterThanOrEqual(stalled!.terminatedAt!);
    const failed = core.ledger.journal(view.id).find((e) => e.kind === 'lease.boot_failed');
    expect(failed?.data).toMatchObject({ machine: stalled!.view.machineId });
    expect(failed?.data.reason).toMatch(/^endpoint: its image pull stalled: no progress for/);
    expect(fake.state.livePods()).toEqual([]);
    expect(core.ledger.listLeases().map((l) => [l.leaseId, l.state])).toEqual(
      fake.state.pods().map((p) => [`runpod:${p.id}`, 'destroyed']),
    );
  });
});
