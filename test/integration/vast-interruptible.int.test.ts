// Interruptible Vast.ai leases against the faithful fake (real sshd nodes): created as bids at
// the expected price; a create that comes back on-demand is destroyed (confirmed) and
// replaced; an outbid lease is marked by the reconcile pass that lists it and shown in
// status; lease.bid raises it and it runs again. Needs root.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunView } from '../../src-main/contract';
import { failedHostsPath } from '../../src-main/providers/vastai/failed-hosts';
import { NOT_A_BID } from '../../src-main/providers/vastai/bid-lease';
import { vastSetups } from '../helpers/vast-setups';
import { until } from '../helpers/wait';

const setup = vastSetups();

/** Storage of the default 32 GB disk at the fake's 0.15 $/GB/month. */
const STORAGE = (0.15 * 32) / 720;

const job = (work: string, run = 'cat hello.txt') => ({
  name: 'bid-job',
  run,
  workspace: { workdir: work, exclude: [] },
});

function createBodies(fake: {
  state: { calls(): { method: string; path: string; body: unknown }[] };
}) {
  return fake.state
    .calls()
    .filter((c) => c.method === 'PUT' && c.path.startsWith('/api/v0/asks/'))
    .map((c) => c.body as Record<string, unknown>);
}

describe('interruptible Vast.ai leases', () => {
  it('an interruptible run is created as a bid at the minimum + 10%, and billed as one', async () => {
    const { core, fake, work, run } = await setup();

    const view = await run({ job: job(work), pool: { provider: 'vastai', interruptible: true } });

    expect(view.status, view.failedReason ?? '').toBe('completed');
    // The fake's offers ask at least 0.21: Tender bids 0.231.
    expect(createBodies(fake).map((b) => b.price)).toEqual([0.231]);
    const [inst] = fake.state.instances();
    expect(inst!.view).toMatchObject({ is_bid: true, dph_base: 0.231 });
    const [lease] = core.ledger.listLeases();
    expect(lease!.pricePerHour).toBeCloseTo(0.231 + STORAGE, 6);
    const rec = core.ledger.getNode(view.nodes[0]!.id)!;
    expect(rec.lease!.metadata).toMatchObject({ interruptible: 'true', bid: '0.231' });
    expect(fake.state.liveInstances()).toEqual([]);
  });

  it('a bid given is the bid made', async () => {
    const { fake, work, run } = await setup();
    const view = await run({
      job: job(work),
      pool: { provider: 'vastai', interruptible: true, bid: 0.26 },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    expect(createBodies(fake).map((b) => b.price)).toEqual([0.26]);
  });

  it('a rerun judges its bid against the market as it is now, before anything is written', async () => {
    const { core, fake, work, run } = await setup({
      offers: [{ gpu_name: 'RTX 4090', dph_base: 0.3, min_bid: 0.21 }],
    });
    const first = await run({
      job: job(work),
      pool: { provider: 'vastai', interruptible: true, bid: 0.26 },
    });
    expect(first.status, first.failedReason ?? '').toBe('completed');
    await fake.faults.outbid(fake.state.instances()[0]!.id, { minBid: 0.29 }); // the market moved
    const r = await core.client.invoke('run.rerun', { runId: first.id });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('bad_input');
      expect(r.error.message).toMatch(/bid of \$0\.260\/h.*minimum bid is \$0\.290\/h/);
    }
    expect(core.ledger.listRuns()).toHaveLength(1);
    expect(createBodies(fake)).toHaveLength(1);
  });

  it('a bid above the on-demand price is bad input before anything is written or rented', async () => {
    const { core, fake, work } = await setup();
    const r = await core.client.invoke('run.start', {
      job: job(work),
      pool: { provider: 'vastai', interruptible: true, bid: 5 },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('bad_input');
      expect(r.error.message).toBe(
        'a bid above the on-demand price $0.300/h rents nothing cheaper; use on-demand',
      );
    }
    expect(core.ledger.listRuns()).toEqual([]);
    expect(createBodies(fake)).toEqual([]);
  });

  it('a create that comes back on-demand is destroyed, confirmed gone, reported, and bid again', async () => {
    const { core, fake, work, run, home } = await setup();
    fake.faults.ignoreBidPrice(1);

    const view = await run({ job: job(work), pool: { provider: 'vastai', interruptible: true } });

    expect(view.status, view.failedReason ?? '').toBe('completed');
    const [first, second] = fake.state.instances();
    expect(first!.view.is_bid).toBe(false);
    expect(first!.destroyedBy).toBe('account');
    expect(second!.view.is_bid).toBe(true);
    expect(fake.state.liveInstances()).toEqual([]);
    const failed = core.ledger.journal(view.id).find((e) => e.kind === 'lease.boot_failed');
    expect(failed?.data.reason).toContain(NOT_A_BID);
    // Destroyed before the replacement was rented.
    const journal = core.ledger.journal(view.id);
    const confirmed = journal.findIndex(
      (e) => e.kind === 'node.step' && e.data.msg === 'DestroyConfirmed',
    );
    const replaced = journal.findIndex((e) => e.kind === 'node.step' && e.data.msg === 'Replace');
    expect(confirmed).toBeGreaterThan(-1);
    expect(replaced).toBeGreaterThan(confirmed);
    // Not the host's fault: it is not kept out of later searches.
    let remembered = '';
    try {
      remembered = readFileSync(failedHostsPath(home), 'utf8');
    } catch {
      // no file: nothing remembered
    }
    expect(remembered).not.toContain(String(first!.view.machine_id));
  });

  it('an outbid lease is marked by the one pass that lists it, shown in status; lease.bid runs it again', async () => {
    const { core, fake, work } = await setup({ timing: { reconcileEveryMs: 250 } });
    const started = await core.client.invoke('run.start', {
      job: job(work, 'sleep 600'),
      pool: { provider: 'vastai', interruptible: true },
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    const runView = async () => {
      const v = await core.client.invoke('run.get', { runId });
      return v.ok ? v.value : null;
    };
    for (let v: RunView | null = null; v?.nodes[0]?.jobStatus !== 'running'; v = await runView())
      await new Promise((r) => setTimeout(r, 50));
    const [inst] = fake.state.liveInstances();
    const label = inst!.label!;

    const outbidAt = Date.now();
    const minBid = await fake.faults.outbid(inst!.id); // 0.231 × 1.25
    expect(minBid).toBe(0.289);

    const row = await until(
      () => core.ledger.listLeases().find((l) => l.label === label && l.interruption),
      15_000,
    );
    expect(row).toMatchObject({ interruption: 'outbid', bid: 0.231, minBid: 0.289 });
    const event = core.ledger.journal(runId).find((e) => e.kind === 'lease.interrupted');
    expect(event?.data).toEqual({ label, state: 'outbid', bid: 0.231, minBid: 0.289 });
    // Within one pass: one listing of the instances between the outbid and the mark.
    const listings = fake.state
      .calls()
      .filter(
        (c) =>
          c.method === 'GET' &&
          c.path.replace(/\/$/, '') === '/api/v0/instances' &&
          c.at >= outbidAt &&
          c.at <= event!.ts,
      );
    expect(listings).toHaveLength(1);

    const status = await core.client.invoke('status.get', {});
    expect(status.ok && status.value.leases.find((l) => l.label === label)).toMatchObject({
      interruption: 'outbid',
      bid: 0.231,
      minBid: 0.289,
    });

    // Refused: below what runs it now, and above on-demand (0.3 for the cheapest offer).
    const low = await core.client.invoke('lease.bid', { leaseId: row.leaseId!, bid: 0.25 });
    expect(!low.ok && low.error).toMatchObject({ code: 'bad_input' });
    const high = await core.client.invoke('lease.bid', { leaseId: row.leaseId!, bid: 0.31 });
    expect(!high.ok && high.error).toMatchObject({
      code: 'bad_input',
      message: 'a bid above the on-demand price $0.300/h rents nothing cheaper; use on-demand',
    });

    const raised = await core.client.invoke('lease.bid', { leaseId: row.leaseId!, bid: 0.295 });
    if (!raised.ok) throw new Error(raised.error.message);
    expect(fake.state.instances()[0]!.actualStatus).toBe('running');
    expect(fake.state.billing(inst!.id).bid).toBe(0.295);
    const resumed = await until(
      () => core.ledger.listLeases().find((l) => l.label === label && !l.interruption),
      15_000,
    );
    expect(resumed.bid).toBe(0.295);
    expect(core.ledger.journal(runId).map((e) => e.kind)).toContain('lease.resumed');
    expect(fake.state.billing(inst!.id).byState.stopped).toBeGreaterThan(0);
    // What it bills now and from when: storage only while outbid, the raised bid after.
    expect(resumed.rates.map((r) => r.perHour)).toEqual([
      expect.closeTo(STORAGE, 6),
      expect.closeTo(0.295 + STORAGE, 6),
    ]);

    const cancelled = await core.client.invoke('run.cancel', { runId });
    expect(cancelled.ok).toBe(true);
    await core.waitRun(runId);
    expect(fake.state.liveInstances()).toEqual([]);
  });
});
