// Interruptible runs through the built CLI against the fake Vast.ai: bad bids are exit 2
// naming the fix before anything is rented; an outbid lease is red in `tender status` and
// `tender bid` brings it back.
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeVast, type FakeVast } from '../fakes/vast';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';
import { defaultOffers } from '../helpers/vast-core';

const newHome = useTempHomes();
const fakes: FakeVast[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.stop();
});

async function fake() {
  const f = await startFakeVast({ offers: defaultOffers(2) });
  fakes.push(f);
  return f;
}

const env = (f: FakeVast) => ({ TENDER_VASTAI_URL: f.url, TENDER_VASTAI_API_KEY: f.apiKey });

describe('tender run --interruptible and tender bid', () => {
  it('a bid above the on-demand price: exit 2 naming the fix, nothing rented', async () => {
    const f = await fake();
    const { home, root } = newHome();
    const job = writeJob(root, 'j', '[job]\nname = "j"\nrun = "echo hi"\n');

    const r = await runCli(['run', job, '--provider', 'vastai', '--interruptible', '--bid', '5'], {
      home,
      env: env(f),
    });

    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      'a bid above the on-demand price $0.300/h rents nothing cheaper; use on-demand',
    );
    expect(r.stderr).toContain('hint: bid at most 0.300, or leave out interruptible and bid');
    expect(f.state.instances()).toEqual([]);
  });

  it('a bid without --interruptible: exit 2 naming the fix', async () => {
    const f = await fake();
    const { home, root } = newHome();
    const job = writeJob(root, 'j', '[job]\nname = "j"\nrun = "echo hi"\n');

    const r = await runCli(['run', job, '--provider', 'vastai', '--bid', '0.25'], {
      home,
      env: env(f),
    });

    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('add interruptible = true (or --interruptible)');
    expect(f.state.instances()).toEqual([]);
  });

  it('an outbid lease is red in tender status; tender bid raises it and it runs again', async () => {
    const f = await fake();
    const { home, root } = newHome();
    const job = writeJob(root, 'j', '[job]\nname = "j"\nrun = "sleep 600"\n');
    const started = await runCli(
      ['run', job, '--provider', 'vastai', '--interruptible', '--detach'],
      { home, env: env(f) },
    );
    expect(started.code, started.stderr).toBe(0);
    const [inst] = f.state.liveInstances();
    const leaseId = `vastai:${inst!.id}`;
    expect(inst!.view.is_bid).toBe(true);
    await f.faults.outbid(inst!.id, { minBid: 0.29 });

    const status = await runCli(['status'], { home, env: env(f) });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(
      `lease ${leaseId} is outbid: bid $0.231/h, now min $0.290/h — \`tender bid ${leaseId} 0.319\` or let recovery move it`,
    );
    expect(status.stdout).toMatch(/created, outbid/);
    // Started by the CLI: its ORIGIN column says so, and so does --json.
    const json = await runCli(['status', '--json'], { home, env: env(f) });
    const runs = (JSON.parse(json.stdout) as { runs: { id: string; origin: string | null }[] })
      .runs;
    expect(runs.map((r) => r.origin)).toEqual(['cli']);
    expect(status.stdout).toMatch(new RegExp(`^${runs[0]!.id}  +j  +[^\n]*?  cli  `, 'm'));

    const tooHigh = await runCli(['bid', leaseId, '0.5'], { home, env: env(f) });
    expect(tooHigh.code, tooHigh.stderr).toBe(2);
    expect(tooHigh.stderr).toContain('a bid above the on-demand price $0.300/h');

    const bid = await runCli(['bid', leaseId, '0.295'], { home, env: env(f) });
    expect(bid.code, bid.stderr).toBe(0);
    expect(bid.stderr).toContain(`lease ${leaseId}: bid $0.295/h; it runs`);
    expect(f.state.instances()[0]!.actualStatus).toBe('running');

    const after = await runCli(['status'], { home, env: env(f) });
    expect(after.stdout).not.toContain('outbid');

    const down = await runCli(['down', '--all'], { home, env: env(f) });
    expect(down.code, down.stderr).toBe(0);
    expect(f.state.liveInstances()).toEqual([]);
  });
});
