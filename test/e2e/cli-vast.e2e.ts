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
  const f = await startFakeVast({ offers: defaultOffers(4) });
  fakes.push(f);
  return f;
}

const env = (f: FakeVast) => ({ TENDER_VASTAI_URL: f.url, TENDER_VASTAI_API_KEY: f.apiKey });

interface Status {
  leases: { state: string; label: string }[];
  orphans: { label: string }[];
}

describe('the CLI against a Vast.ai-shaped API', () => {
  it('tender offers: cheapest all-in first, marks the ones a --count run would take', async () => {
    const f = await fake();
    const { home } = newHome();
    const table = await runCli(['offers', '--gpu', 'RTX 4090', '--count', '2'], {
      home,
      env: env(f),
    });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/\$\/h ALL-IN/);
    expect(table.stdout.split('\n').filter((l) => l.startsWith('*'))).toHaveLength(2);
    expect(table.stderr).toMatch(/the 2 cheapest cost \$[0-9.]+\/h together/);
    const json = await runCli(['offers', '--json', '--max-price', '0.40'], { home, env: env(f) });
    const offers = JSON.parse(json.stdout) as { pricePerHour: number }[];
    expect(offers.length).toBeGreaterThan(0);
    for (const o of offers) expect(o.pricePerHour).toBeLessThanOrEqual(0.4);
  });

  it('says which key is missing instead of failing obscurely', async () => {
    const { home } = newHome();
    const r = await runCli(['offers'], { home });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no Vast.ai API key[\s\S]*TENDER_VASTAI_API_KEY/);
  });

  // kill -9 of tender run at each create/destroy boundary, then a restart and down --all.
  for (const at of [
    'before-create-call',
    'after-create-call',
    'before-destroy-call',
    'after-destroy-call',
  ]) {
    it(`kill -9 at ${at}: no instance lost or duplicated; down --all leaves zero live`, async () => {
      const f = await fake();
      const { home, root } = newHome();
      // The destroy boundaries are reached through a boot failure: the instance exits.
      if (at.includes('destroy')) f.faults.nextInstanceFate('exited', { count: 5 });
      const job = writeJob(root, 'j', '[job]\nname = "j"\nrun = "echo hi"\n');
      const crashed = await runCli(['run', job, '--provider', 'vastai'], {
        home,
        env: { ...env(f), TENDER_TEST_CRASH_AT: at },
      });
      expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
      const created = f.state.instances().length;
      expect(created).toBeLessThanOrEqual(1); // one intent, at most one instance

      const status = await runCli(['status', '--json'], { home, env: env(f) });
      const s = JSON.parse(status.stdout) as Status;
      expect(s.leases).toHaveLength(1); // the intent was recorded before the provider was called
      expect(s.orphans).toEqual([]);

      const down = await runCli(['down', '--all', '--json'], { home, env: env(f) });
      expect(down.code, down.stderr).toBe(0);
      expect(JSON.parse(down.stdout.trim().split('\n').pop()!)).toMatchObject({
        allConfirmed: true,
      });
      await f.sync();
      expect(f.state.liveInstances()).toEqual([]);
      expect(f.state.instances().length).toBe(created); // down created nothing
    });
  }
});
