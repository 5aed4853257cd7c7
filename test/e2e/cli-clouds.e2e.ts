// The CLI against all three marketplace fakes at once: one offers table, a failing one
// named without hiding the others, the bad inputs of several providers, and kill -9 at the
// create and destroy boundaries against RunPod and Lambda Cloud (Vast.ai's are in
// cli-vast.e2e.ts): never a leak, never a duplicate.
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLambda, type FakeLambda } from '../fakes/lambda';
import { startFakeRunpod, type FakeRunpod } from '../fakes/runpod';
import { startFakeVast, type FakeVast } from '../fakes/vast';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';
import { defaultOffers } from '../helpers/vast-core';

const newHome = useTempHomes();
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

async function vast(): Promise<FakeVast> {
  const f = await startFakeVast({ offers: defaultOffers(2) });
  stops.push(() => f.stop());
  return f;
}
async function runpod(): Promise<FakeRunpod> {
  const f = await startFakeRunpod();
  stops.push(() => f.stop());
  return f;
}
async function lambda(): Promise<FakeLambda> {
  const f = await startFakeLambda();
  stops.push(() => f.stop());
  return f;
}

const envOf = (f: { v?: FakeVast; r?: FakeRunpod; l?: FakeLambda }) => ({
  ...(f.v ? { TENDER_VASTAI_URL: f.v.url, TENDER_VASTAI_API_KEY: f.v.apiKey } : {}),
  ...(f.r ? { TENDER_RUNPOD_URL: f.r.url, TENDER_RUNPOD_API_KEY: f.r.apiKey } : {}),
  ...(f.l ? { TENDER_LAMBDA_URL: f.l.url, TENDER_LAMBDA_API_KEY: f.l.apiKey } : {}),
});

interface OfferRow {
  provider: string;
  gpuName: string;
  pricePerHour: number;
}

describe('the CLI across Vast.ai, RunPod and Lambda Cloud', () => {
  it('tender offers: one table of every configured marketplace, cheapest first', async () => {
    const [v, r, l] = await Promise.all([vast(), runpod(), lambda()]);
    const { home } = newHome();
    const env = envOf({ v, r, l });
    const table = await runCli(['offers', '--limit', '50'], { home, env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/PROVIDER/);
    for (const p of ['vastai', 'runpod', 'lambda']) expect(table.stdout).toContain(p);
    const json = await runCli(['offers', '--json', '--limit', '50'], { home, env });
    const rows = JSON.parse(json.stdout) as OfferRow[];
    expect(new Set(rows.map((o) => o.provider))).toEqual(new Set(['vastai', 'runpod', 'lambda']));
    const prices = rows.map((o) => o.pricePerHour);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    // One GPU across providers that spell it differently (RunPod's id: NVIDIA GeForce RTX 4090).
    const rtx = await runCli(['offers', '--json', '--gpu', 'RTX_4090'], { home, env });
    const rtxRows = JSON.parse(rtx.stdout) as OfferRow[];
    expect(new Set(rtxRows.map((o) => o.provider))).toEqual(new Set(['vastai', 'runpod']));
    // --provider narrows the table.
    const only = await runCli(['offers', '--json', '--provider', 'lambda'], { home, env });
    expect(new Set((JSON.parse(only.stdout) as OfferRow[]).map((o) => o.provider))).toEqual(
      new Set(['lambda']),
    );
  });

  it('a marketplace that fails is named; the others still show', async () => {
    const [v, r] = await Promise.all([vast(), runpod()]);
    const { home } = newHome();
    const env = { ...envOf({ v, r }), TENDER_LAMBDA_URL: r.url, TENDER_LAMBDA_API_KEY: 'wrong' };
    const res = await runCli(['offers', '--json'], { home, env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/^lambda: /m);
    const rows = JSON.parse(res.stdout) as OfferRow[];
    expect(new Set(rows.map((o) => o.provider))).toEqual(new Set(['vastai', 'runpod']));
  });

  it('bad input names the fix: unknown provider, a GPU nobody sells, a provider with no key', async () => {
    const [v] = await Promise.all([vast()]);
    const { home, root } = newHome();
    const env = envOf({ v });
    const job = writeJob(root, 'j', '[job]\nname = "j"\nrun = "echo hi"\n');

    const unknown = await runCli(['run', job, '--provider', 'nimbus'], { home, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown provider "nimbus"[\s\S]*known providers: .*runpod/);
    const inList = await runCli(['run', job, '--provider', 'runpod,nimbus'], { home, env });
    expect(inList.code).toBe(2);
    expect(inList.stderr).toMatch(/unknown provider "nimbus" in "runpod,nimbus"/);

    const unsold = await runCli(['offers', '--gpu', 'RTX 9999'], { home, env });
    expect(unsold.code).toBe(2);
    expect(unsold.stderr).toMatch(/no provider sells a GPU called "RTX 9999"[\s\S]*RTX 4090/);

    const noKey = await runCli(['offers', '--provider', 'runpod'], { home, env });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/runpod is not configured[\s\S]*TENDER_RUNPOD_API_KEY/);
    const runNoKey = await runCli(['run', job, '--provider', 'lambda'], { home, env });
    expect(runNoKey.code).toBe(2);
    expect(runNoKey.stderr).toMatch(/lambda is not configured[\s\S]*TENDER_LAMBDA_API_KEY/);
  });

  // kill -9 of `tender run` at the create boundaries, and of `tender down` at the destroy
  // boundaries; then a restart: the ledger holds the intent, down --all leaves zero live.
  for (const provider of ['runpod', 'lambda'] as const) {
    for (const at of ['before-create-call', 'after-create-call']) {
      for (const downAt of ['before-destroy-call', 'after-destroy-call']) {
        it(`${provider}: kill -9 at ${at}, then at ${downAt} of down: one instance at most, none left`, async () => {
          const fake = provider === 'runpod' ? await runpod() : await lambda();
          const live = () =>
            'livePods' in fake.state ? fake.state.livePods() : fake.state.liveInstances();
          const made = () => ('pods' in fake.state ? fake.state.pods() : fake.state.instances());
          const env =
            provider === 'runpod'
              ? envOf({ r: fake as FakeRunpod })
              : envOf({ l: fake as FakeLambda });
          const { home, root } = newHome();
          const job = writeJob(root, 'j', '[job]\nname = "j"\nrun = "sleep 600"\n');
          const gpu = provider === 'runpod' ? 'RTX 4090' : 'A10';
          const crashed = await runCli(['run', job, '--provider', provider, '--gpu', gpu], {
            home,
            env: { ...env, TENDER_TEST_CRASH_AT: at },
          });
          expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
          expect(made().length).toBeLessThanOrEqual(1); // one intent, at most one instance

          const status = await runCli(['status', '--json'], { home, env });
          const s = JSON.parse(status.stdout) as { leases: unknown[]; orphans: unknown[] };
          expect(s.leases).toHaveLength(1); // recorded before the provider was called
          expect(s.orphans).toEqual([]);

          const downCrashed = await runCli(['down', '--all', '--json'], {
            home,
            env: { ...env, TENDER_TEST_CRASH_AT: downAt },
          });
          if (made().length > 0) expect(downCrashed.signal, downCrashed.stderr).toBe('SIGKILL');
          const down = await runCli(['down', '--all', '--json'], { home, env });
          expect(down.code, down.stderr).toBe(0);
          expect(JSON.parse(down.stdout.trim().split('\n').pop()!)).toMatchObject({
            allConfirmed: true,
          });
          expect(live()).toEqual([]);
          expect(made().length).toBeLessThanOrEqual(1); // down created nothing
        });
      }
    }
  }
});
