// RunPod end to end against the faithful fake (real sshd nodes, the built agent): a job on
// two pods with its outputs back and both pods terminated; a create whose answer is lost
// after the pod was made is adopted by its label, not made twice.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { labelPrefix } from '../../src-main/base/ids';
import { runpodSetup } from '../helpers/runpod-core';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(opts: Parameters<typeof runpodSetup>[0] = {}) {
  const t = await runpodSetup(opts);
  cleanups.push(() => t.close());
  return t;
}

const job = (work: string) => ({
  name: 'runpod-job',
  setup: 'echo setting up on $RUNPOD_POD_ID',
  run: 'cat hello.txt; mkdir -p out; echo 7 > out/result.txt',
  outputs: ['out/result.txt'],
  workspace: { workdir: work, exclude: [] },
});

describe('RunPod against the faithful fake (real sshd nodes)', () => {
  it('runs a job on 2 pods end to end; both are terminated and nothing else was created', async () => {
    const { core, fake, work, run } = await setup();
    const offers = await core.client.invoke('offers.search', {
      provider: 'runpod',
      filter: { gpu: 'RTX 4090' },
    });
    expect(offers.ok && offers.value.map((o) => o.offerId)).toEqual([
      'NVIDIA GeForce RTX 4090|COMMUNITY',
      'NVIDIA GeForce RTX 4090|SECURE',
    ]);

    const view = await run({
      job: job(work),
      pool: { provider: 'runpod', count: 2, gpu: 'RTX 4090' },
    });

    expect(view.status, view.failedReason ?? '').toBe('completed');
    expect(view.nodes.map((n) => n.stage)).toEqual(['destroyed', 'destroyed']);
    const pods = fake.state.pods();
    expect(pods).toHaveLength(2); // nothing else was ever created
    expect(fake.state.livePods()).toEqual([]);
    const prefix = labelPrefix(core.ledger.installId());
    for (const p of pods) {
      expect(p.name.startsWith(prefix)).toBe(true);
      expect(p.env.TENDER_LABEL).toBe(p.name);
      expect(p.cloudType).toBe('COMMUNITY'); // the cheaper cloud
      expect(p.terminatedBy).toBe('account');
    }
    const leases = core.ledger.listLeases();
    expect(leases.map((l) => l.state)).toEqual(['destroyed', 'destroyed']);
    for (const l of leases) expect(l.pricePerHour).toBe(0.34);
    for (const n of ['node-0', 'node-1'])
      expect(
        readFileSync(join(core.home, 'runs', view.id, n, 'outputs', 'out', 'result.txt'), 'utf8'),
      ).toBe('7\n');
    const logs = await core.client.invoke('logs.read', { runId: view.id, channel: 'agent' });
    expect(
      logs.ok && logs.value.records.filter((r) => r.source === 'run').map((r) => r.line),
    ).toContain('hello from a RunPod pod');
    // The account key went only to the API, as a Bearer header; never into a pod's env.
    for (const p of pods) expect(Object.values(p.env).join('\n')).not.toContain(fake.apiKey);
  });

  it('a 500 after the pod was really created is adopted by its label: one pod per node, none left', async () => {
    const { core, fake, work, run } = await setup();
    fake.faults.failCreateAfterCreate(1, 500);

    const view = await run({
      job: job(work),
      pool: { provider: 'runpod', count: 2, gpu: 'RTX 4090' },
    });

    expect(view.status, view.failedReason ?? '').toBe('completed');
    const pods = fake.state.pods();
    expect(pods).toHaveLength(2);
    expect(new Set(pods.map((p) => p.name)).size).toBe(2);
    expect(fake.state.livePods()).toEqual([]);
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['destroyed', 'destroyed']);
    expect(fake.state.calls().some((c) => c.status === 500)).toBe(true);
  });

  it('a pod that never gets a runtime is terminated at the endpoint deadline and replaced', async () => {
    // RUNNING without a runtime is a pull that does not move: given up at the longer of the
    // endpoint deadline and the pull's stall window.
    const { core, fake, work, run } = await setup({
      timing: { endpointDeadlineMs: 2_000, pullStallMs: 2_000 },
    });
    fake.faults.stuckBooting(1);

    const view = await run({ job: job(work), pool: { provider: 'runpod', count: 1 } });

    expect(view.status, view.failedReason ?? '').toBe('completed');
    const [first, second] = fake.state.pods();
    expect(first!.hasRuntime).toBe(false);
    expect(first!.terminatedAt!).toBeLessThanOrEqual(second!.createdAt);
    expect(fake.state.pods()).toHaveLength(2);
    expect(fake.state.livePods()).toEqual([]);
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['destroyed', 'destroyed']);
  });
});
