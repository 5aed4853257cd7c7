import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { labelPrefix } from '../../src-main/base/ids';
import { failedHostsPath } from '../../src-main/providers/vastai/failed-hosts';
import { defaultOffers } from '../helpers/vast-core';
import { vastSetups } from '../helpers/vast-setups';

const setup = vastSetups();

const job = (work: string) => ({
  name: 'vast-job',
  setup: 'echo setting up on $CONTAINER_ID',
  run: 'cat hello.txt; mkdir -p out; echo 7 > out/result.txt',
  outputs: ['out/result.txt'],
  workspace: { workdir: work, exclude: [] },
});

describe('Vast.ai against the faithful fake (real sshd nodes)', () => {
  it('runs a job on 2 nodes end to end; the fake shows both destroyed and nothing else created', async () => {
    const { core, fake, work, run } = await setup();
    const offers = await core.client.invoke('offers.search', {
      provider: 'vastai',
      filter: { gpu: 'RTX 4090' },
    });
    expect(offers.ok && offers.value.map((o) => o.pricePerHour)).toEqual(
      offers.ok ? [...offers.value.map((o) => o.pricePerHour)].sort((a, b) => a - b) : [],
    );
    const view = await run({
      job: job(work),
      pool: { provider: 'vastai', count: 2, gpu: 'RTX 4090' },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expect(view.nodes.map((n) => n.stage)).toEqual(['destroyed', 'destroyed']);

    const instances = fake.state.instances();
    expect(instances).toHaveLength(2); // nothing else was ever created
    expect(fake.state.liveInstances()).toEqual([]);
    const prefix = labelPrefix(core.ledger.installId());
    for (const i of instances) expect(i.label?.startsWith(prefix)).toBe(true);
    // The two cheapest offers were taken, and each lease recorded its all-in price.
    const leases = core.ledger.listLeases();
    expect(leases.map((l) => l.state)).toEqual(['destroyed', 'destroyed']);
    for (const l of leases) expect(l.pricePerHour).toBeGreaterThan(0);
    for (const n of ['node-0', 'node-1']) {
      expect(
        readFileSync(join(core.home, 'runs', view.id, n, 'outputs', 'out', 'result.txt'), 'utf8'),
      ).toBe('7\n');
    }
    const logs = await core.client.invoke('logs.read', { runId: view.id, channel: 'agent' });
    expect(
      logs.ok && logs.value.records.filter((r) => r.source === 'run').map((r) => r.line),
    ).toContain('hello from a rented GPU');
  });

  it('a 500 after the instance was really created is adopted by its label: no duplicate', async () => {
    const { core, fake, work, run } = await setup();
    fake.faults.failCreateAfterCommit(1, 500);
    const view = await run({ job: job(work), pool: { provider: 'vastai', count: 1 } });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expect(fake.state.instances()).toHaveLength(1);
    expect(fake.state.liveInstances()).toEqual([]);
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['destroyed']);
  });

  it('an offer rented away between search and create: the next offer is taken', async () => {
    const { fake, work, run } = await setup();
    fake.faults.rentAwayAfterSearch(1);
    const view = await run({ job: job(work), pool: { provider: 'vastai', count: 1 } });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expect(fake.state.instances()).toHaveLength(1);
  });

  it('a host that never gets past loading is destroyed, confirmed gone, remembered, and replaced on another host', async () => {
    // It says `loading` and nothing moves: given up at the longer of the two windows.
    const { core, fake, work, run, home } = await setup({
      timing: { endpointDeadlineMs: 2_000, pullStallMs: 2_000 },
    });
    fake.faults.nextInstanceFate('stay_loading', { count: 1 });
    const view = await run({ job: job(work), pool: { provider: 'vastai', count: 1 } });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    const [first, second] = fake.state.instances();
    expect(String(first!.view.machine_id)).not.toBe(String(second!.view.machine_id));
    expect(fake.state.liveInstances()).toEqual([]);
    // The failed lease was destroyed before the replacement was created.
    const journal = core.ledger.journal(view.id);
    const failedGone = journal.findIndex(
      (e) => e.kind === 'node.step' && e.data.msg === 'DestroyConfirmed',
    );
    const replaced = journal.findIndex((e) => e.kind === 'node.step' && e.data.msg === 'Replace');
    expect(failedGone).toBeGreaterThan(-1);
    expect(replaced).toBeGreaterThan(failedGone);
    expect(journal.find((e) => e.kind === 'lease.boot_failed')?.data).toMatchObject({
      machine: String(first!.view.machine_id),
    });
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['destroyed', 'destroyed']);
    // Remembered: the next search leaves that host out.
    expect(existsSync(failedHostsPath(home))).toBe(true);
    const offers = await core.client.invoke('offers.search', { provider: 'vastai', filter: {} });
    expect(offers.ok && offers.value.map((o) => o.machineId)).not.toContain(
      String(first!.view.machine_id),
    );
  });

  it('an instance that exits fails fast, and is replaced', async () => {
    const { fake, work, run } = await setup();
    fake.faults.nextInstanceFate('exited', { count: 1 });
    const view = await run({ job: job(work), pool: { provider: 'vastai', count: 1 } });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expect(fake.state.instances()).toHaveLength(2);
    expect(fake.state.liveInstances()).toEqual([]);
  });

  it('a destroy that fails 5 times keeps the lease listed and retrying until it is confirmed gone', async () => {
    // The HTTP layer's own retries are off here, so the five failures reach the NodeManager.
    const { core, fake, work, run } = await setup({
      timing: { teardownMaxAttempts: 20 },
      httpRetry: { deadlineMs: 1 },
    });
    fake.faults.failDestroys(5);
    const view = await run({ job: job(work), pool: { provider: 'vastai', count: 1 } });
    expect(view.status).toBe('completed');
    expect(fake.state.liveInstances()).toEqual([]);
    const steps = core.ledger
      .journal(view.id)
      .filter((e) => e.kind === 'node.step')
      .map((e) => String(e.data.msg));
    expect(steps.filter((m) => m === 'DestroyFailed').length).toBeGreaterThanOrEqual(1);
    expect(steps[steps.length - 1]).toBe('DestroyConfirmed');
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['destroyed']);
  });

  it('a 429 storm on every endpoint: the run still succeeds, with a bounded number of calls', async () => {
    const { fake, work, run } = await setup();
    fake.faults.rateLimit({ ratio: 0.4, seed: 7 });
    const view = await run({ job: job(work), pool: { provider: 'vastai', count: 1 } });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expect(fake.state.liveInstances()).toEqual([]);
    const calls = fake.state.calls();
    expect(calls.filter((c) => c.status === 429).length).toBeGreaterThan(0);
    expect(calls.length).toBeLessThan(200); // backoff, not a tight loop
  });

  it('twenty creates at once from the same search all succeed, each on its own offer', async () => {
    const { fake, vast } = await setup({ offers: defaultOffers(22) });
    fake.faults.nextInstanceFate('stay_loading', { count: 20 });
    fake.faults.latency(40); // a real API's round trip: the window in which creates race
    const signal = AbortSignal.timeout(60_000);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        vast().createLease(
          { label: `tender-test-race-n${i}`, runId: 'r-race', logicalId: `n${i}`, shape: {} },
          signal,
        ),
      ),
    );
    const offers = results.map((r) => r.lease.offerId);
    expect(new Set(offers).size).toBe(20);
    expect(fake.state.liveInstances()).toHaveLength(20);
    await Promise.all(results.map((r) => vast().destroyLease(r.lease.destroyHandle, signal)));
    await fake.sync();
    expect(fake.state.liveInstances()).toEqual([]);
  });

  it('tear down all destroys every live Vast lease and orphan in parallel, verified', async () => {
    const { core, fake, work } = await setup({ offers: defaultOffers(6) });
    const started = await core.client.invoke('run.start', {
      job: { ...job(work), run: 'sleep 600' },
      pool: { provider: 'vastai', count: 3 },
      keep: true,
    });
    if (!started.ok) throw new Error(started.error.message);
    await core.waitJobsStarted(started.value.id);
    expect(fake.state.liveInstances()).toHaveLength(3);
    const down = await core.client.invoke('lease.destroyAll', {});
    expect(down.ok && down.value).toMatchObject({ allConfirmed: true });
    expect(down.ok && down.value.outcomes).toHaveLength(3);
    expect(fake.state.liveInstances()).toEqual([]);
  });
});
