// RunpodProvider's own promises on the faithful fake, beyond the conformance suite: no
// capacity, the boot, preemption as the reconciler lists it, resume, the market check of a
// bid, failing terminates and 429 storms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PoolSpec } from '../../src-main/contract/job';
import { RunpodProvider } from '../../src-main/providers/runpod/provider';
import { startFakeRunpod } from '../fakes/runpod';
import { runpodProviderFor } from '../helpers/runpod-core';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setUp(
  opts: Parameters<typeof startFakeRunpod>[0] = {},
  httpRetry?: { deadlineMs?: number },
) {
  const fake = await startFakeRunpod(opts);
  const home = mkdtempSync(join(tmpdir(), 'tender-runpod-prov-'));
  cleanups.push(async () => {
    await fake.stop();
    rmSync(home, { recursive: true, force: true });
  });
  return { fake, provider: runpodProviderFor(fake, home, httpRetry ? { httpRetry } : {}) };
}

const signal = new AbortController().signal;
const req = (node: string, shape: Record<string, unknown> = {}) => ({
  label: `tender-prov0a-run1-${node}`,
  runId: 'r-run1',
  logicalId: node,
  shape,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function endpointOf(
  provider: RunpodProvider,
  lease: Parameters<RunpodProvider['lookupEndpoint']>[0],
) {
  for (let i = 0; i < 50; i++) {
    const e = await provider.lookupEndpoint(lease, signal);
    if (e) return e;
    await sleep(50);
  }
  throw new Error('no endpoint');
}

describe('RunpodProvider on the fake', () => {
  it('is not configured without a key', () => {
    const p = new RunpodProvider({ apiKey: '', publicKey: () => '' });
    expect(p.isConfigured()).toBe(false);
    expect(p.kind).toBe('runpod');
  });

  it('creates with PUBLIC_KEY, TENDER_LABEL, 22/tcp and a public IP; the endpoint is the public port 22 once the runtime is there', async () => {
    const { fake, provider } = await setUp({ bootMs: 200 });
    const { lease } = await provider.createLease(
      req('node-0', { gpu: 'RTX 4090', verified: true, disk_gb: 20 }),
      signal,
    );
    const [pod] = fake.state.pods();
    expect(pod).toMatchObject({
      cloudType: 'SECURE',
      gpuTypeId: 'NVIDIA GeForce RTX 4090',
      name: lease.label,
    });
    expect(pod!.env.TENDER_LABEL).toBe(lease.label);
    expect(pod!.env.PUBLIC_KEY).toMatch(/^ssh-ed25519 /);
    expect(lease).toMatchObject({
      leaseId: `runpod:${pod!.id}`,
      pricePerHour: 0.69,
      offerId: 'NVIDIA GeForce RTX 4090|SECURE',
    });
    expect(await provider.lookupEndpoint(lease, signal)).toBeNull(); // runtime null
    expect(await endpointOf(provider, lease)).toEqual({
      kind: 'ssh',
      host: '127.0.0.1',
      port: pod!.node.port,
      user: pod!.node.user,
      authRef: 'tender',
      hostKeyScope: `lease:${lease.label}`,
      knownHosts: false,
    });
    const create = fake.state.calls().find((c) => c.fields.includes('podFindAndDeployOnDemand'));
    expect(create?.variables.input).toMatchObject({
      ports: '22/tcp',
      supportPublicIp: true,
      startSsh: true,
      containerDiskInGb: 20,
      volumeInGb: 0,
    });
  });

  it('no capacity for the spec is a noCapacity ProviderError, after trying the other cloud', async () => {
    const { fake, provider } = await setUp();
    fake.faults.noCapacity();
    await expect(
      provider.createLease(req('node-0', { gpu: 'RTX 4090' }), signal),
    ).rejects.toMatchObject({
      opts: { noCapacity: true },
    });
    const creates = fake.state.calls().filter((c) => c.fields.includes('podFindAndDeployOnDemand'));
    expect(creates.map((c) => (c.variables.input as { cloudType: string }).cloudType)).toEqual([
      'COMMUNITY',
      'SECURE',
    ]);
    expect(fake.state.pods()).toEqual([]);
    await expect(
      provider.createLease(req('node-1', { gpu: 'H100' }), signal),
    ).rejects.toMatchObject({
      opts: { noCapacity: true },
    });
  });

  it('a pod stuck booting stays "not yet"; a preempted interruptible pod is listed outbid and its endpoint is fatal; startLease resumes it', async () => {
    const { fake, provider } = await setUp({ bootMs: 50 });
    fake.faults.stuckBooting(1);
    const stuck = await provider.createLease(req('node-0'), signal);
    await sleep(120);
    expect(await provider.lookupEndpoint(stuck.lease, signal)).toBeNull();

    const spot = await provider.createLease(
      req('node-1', { interruptible: true, gpu: 'RTX 4090' }),
      signal,
    );
    expect(spot.lease.metadata).toMatchObject({ interruptible: 'true', bid: '0.22' });
    await endpointOf(provider, spot.lease);
    await fake.faults.preempt(spot.lease.contractId);
    const listed = await provider.listLabeled('tender-prov0a-', signal);
    expect(listed.map((l) => [l.label, l.condition?.state])).toEqual([
      [stuck.lease.label, 'loading'],
      [spot.lease.label, 'outbid'],
    ]);
    await expect(provider.lookupEndpoint(spot.lease, signal)).rejects.toMatchObject({
      opts: { fatal: true },
    });
    await provider.startLease(spot.lease, signal);
    expect(await endpointOf(provider, spot.lease)).toMatchObject({ kind: 'ssh' });
  });

  it('checkPool: a bid above the on-demand price is bad input', async () => {
    const { provider } = await setUp();
    const pool = (p: Record<string, unknown>) =>
      PoolSpec.parse({ provider: 'runpod', interruptible: true, gpu: 'RTX 4090', ...p });
    await expect(provider.checkPool(pool({ bid: 5 }), signal)).rejects.toMatchObject({
      code: 'bad_input',
    });
    await expect(provider.checkPool(pool({ bid: 0.25 }), signal)).resolves.toBeUndefined();
  });

  it('a terminate that fails is retried by the HTTP layer; a 429 storm with Retry-After still gets through', async () => {
    const { fake, provider } = await setUp();
    const { lease } = await provider.createLease(req('node-0'), signal);
    fake.faults.failTerminates(2, 503);
    await provider.destroyLease(lease.destroyHandle, signal);
    expect(await provider.isGone(lease.destroyHandle, signal)).toBe(true);

    fake.faults.rateLimit({ ratio: 0.5, seed: 3, retryAfterS: 0 });
    expect((await provider.searchOffers({ gpu: 'RTX 4090' }, signal)).length).toBe(2);
    expect(fake.state.calls().some((c) => c.status === 429)).toBe(true);
  });

  it('a terminate that keeps failing throws, so the orchestrator retries it', async () => {
    const { fake, provider } = await setUp({}, { deadlineMs: 1 });
    const { lease } = await provider.createLease(req('node-0'), signal);
    fake.faults.failTerminates(1, 500);
    await expect(provider.destroyLease(lease.destroyHandle, signal)).rejects.toThrow(
      /terminate pod .* HTTP 500/,
    );
    expect(await provider.isGone(lease.destroyHandle, signal)).toBe(false);
  });
});
