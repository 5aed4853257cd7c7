// One GPU name, every marketplace: `offers.searchAll` (the Offers view and `tender offers`)
// against the Vast.ai, RunPod and Lambda Cloud fakes. A family name (`A100`, `H100`,
// `4090`), typed in any case and spacing, finds each marketplace's variants — Vast.ai's
// exact `gpu_name` filter is sent the expanded list — and an exact variant still narrows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OfferFilterInput } from '../../src-main/contract';
import { TenderCore } from '../../src-main/core/tender-core';
import { startFakeLambda, type FakeLambda } from '../fakes/lambda';
import { startFakeRunpod, type FakeRunpod } from '../fakes/runpod';
import { startFakeVast, type FakeVast } from '../fakes/vast';
import { TEST_TIMING } from '../helpers/vast-core';

let vast: FakeVast;
let runpod: FakeRunpod;
let lambda: FakeLambda;
let core: TenderCore;
let root: string;

beforeAll(async () => {
  // As each marketplace names its GPUs.
  vast = await startFakeVast({
    offers: ['A100 SXM4', 'A100 PCIE', 'H100 SXM', 'H100 NVL', 'RTX 4090', 'RTX 3090'].map(
      (gpu_name, i) => ({ gpu_name, dph_base: 0.2 + i * 0.1 }),
    ),
  });
  runpod = await startFakeRunpod({
    gpuTypes: [
      { id: 'NVIDIA GeForce RTX 4090', displayName: 'RTX 4090', memoryInGb: 24 },
      { id: 'NVIDIA A100 80GB PCIe', displayName: 'A100 PCIe', memoryInGb: 80 },
      { id: 'NVIDIA H100 80GB HBM3', displayName: 'H100 SXM', memoryInGb: 80 },
    ],
  });
  lambda = await startFakeLambda(); // A10 (24 GB PCIe), A100 (40 GB SXM4), 8× H100 (80 GB SXM5)
  root = mkdtempSync(join(tmpdir(), 'tender-gpu-names-'));
  core = TenderCore.open({
    home: join(root, 'home'),
    env: {
      ...process.env,
      TENDER_VASTAI_URL: vast.url,
      TENDER_VASTAI_API_KEY: vast.apiKey,
      TENDER_RUNPOD_URL: runpod.url,
      TENDER_RUNPOD_API_KEY: runpod.apiKey,
      TENDER_LAMBDA_URL: lambda.url,
      TENDER_LAMBDA_API_KEY: lambda.apiKey,
    },
    timing: TEST_TIMING,
    reconcile: false,
  });
});

afterAll(async () => {
  await core?.close();
  await Promise.all([vast?.stop(), runpod?.stop(), lambda?.stop()]);
  rmSync(root, { recursive: true, force: true });
});

async function search(filter: OfferFilterInput) {
  const r = await core.client.invoke('offers.searchAll', { filter });
  if (!r.ok) throw new Error(`${r.error.message} (${r.error.hint ?? ''})`);
  for (const s of r.value.sources) expect(s.error, s.provider).toBeNull();
  return r.value.offers.map((o) => `${o.provider}: ${o.gpuName}`).sort();
}

/** The gpu_name filter of Vast.ai's last offer search. */
const lastVastGpuFilter = () =>
  (
    vast.state
      .calls()
      .filter((c) => c.path.startsWith('/api/v0/bundles'))
      .at(-1)!.body as Record<string, unknown>
  ).gpu_name;

describe('one GPU name, every marketplace', () => {
  // prettier-ignore
  const cases: [string, OfferFilterInput, string[]][] = [
    ['A100: every marketplace, every variant', { gpu: 'A100' }, ['lambda: A100 (40 GB SXM4)', 'runpod: A100 PCIe', 'vastai: A100 PCIE', 'vastai: A100 SXM4']],
    ['a100 in lower case', { gpu: 'a100' }, ['lambda: A100 (40 GB SXM4)', 'runpod: A100 PCIe', 'vastai: A100 PCIE', 'vastai: A100 SXM4']],
    ['H100: Vast.ai and RunPod (Lambda has 8-GPU H100s only)', { gpu: 'H100' }, ['runpod: H100 SXM', 'vastai: H100 NVL', 'vastai: H100 SXM']],
    ['8 × H100: Lambda and RunPod', { gpu: 'H100', gpuCount: 8 }, ['lambda: H100 (80 GB SXM5)', 'runpod: H100 SXM']],
    ['rtx 4090 in lower case', { gpu: 'rtx 4090' }, ['runpod: RTX 4090', 'vastai: RTX 4090']],
    ['4090 alone', { gpu: '4090' }, ['runpod: RTX 4090', 'vastai: RTX 4090']],
    ['an exact variant narrows: A100 SXM4', { gpu: 'A100 SXM4' }, ['lambda: A100 (40 GB SXM4)', 'vastai: A100 SXM4']],
    ['an exact variant narrows: H100 NVL', { gpu: 'H100_NVL' }, ['vastai: H100 NVL']],
  ];
  it.each(cases)('%s', async (_what, filter, want) => {
    expect(await search(filter)).toEqual(want);
  });

  it("Vast.ai's exact filter is sent the expanded list", async () => {
    await search({ gpu: 'A100' });
    expect(lastVastGpuFilter()).toEqual({ in: ['A100 SXM4', 'A100 PCIE', 'A100X'] });
    await search({ gpu: 'rtx 4090' });
    expect(lastVastGpuFilter()).toEqual({ eq: 'RTX 4090' });
  });

  it('a name nobody sells is still refused, naming what is sold', async () => {
    const r = await core.client.invoke('offers.searchAll', { filter: { gpu: 'K80' } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe('no provider sells a GPU called "K80"');
  });
});
