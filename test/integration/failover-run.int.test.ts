// A pool naming several marketplaces, against the RunPod and Vast.ai fakes (real sshd nodes):
// RunPod out of capacity rents on Vast.ai and says why; `cheapest` rents where it is
// cheapest; each lease names the marketplace that made it, and teardown and reconciliation
// go there. The failover logic itself is table-tested in failover-provider.test.ts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandInput, RunView, StatusView } from '../../src-main/contract';
import { TenderCore } from '../../src-main/core/tender-core';
import { hostKey } from '../../src-agent/wire/host-key';
import { failedHostsPath } from '../../src-main/providers/vastai/failed-hosts';
import { VastProvider } from '../../src-main/providers/vastai/provider';
import { ensureTenderKey } from '../../src-main/transport/keys';
import { startFakeRunpod, type FakeRunpod } from '../fakes/runpod';
import { startFakeVast, VAST_ENV_FILE, type FakeVast } from '../fakes/vast';
import { agentBundlePath } from '../helpers/agent-bundle';
import { runpodProviderFor } from '../helpers/runpod-core';
import { eventually, eventuallyAsync } from '../helpers/wait';
import { defaultOffers, TEST_TIMING } from '../helpers/vast-core';

interface Setup {
  runpod: FakeRunpod;
  vast: FakeVast;
  core: TenderCore;
  work: string;
  run(input: CommandInput<'run.start'>): Promise<RunView>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** Both fakes, and a core with both providers (the fakes' throw-away users as SSH users). */
async function setup(vastPrice = 0.3): Promise<Setup> {
  const runpod = await startFakeRunpod();
  closers.push(() => runpod.stop());
  const vast = await startFakeVast({
    offers: defaultOffers(2).map((o, i) => ({ ...o, dph_base: vastPrice + i * 0.05 })),
  });
  closers.push(() => vast.stop());
  const root = mkdtempSync(join(tmpdir(), 'tender-failover-'));
  closers.push(async () => rmSync(root, { recursive: true, force: true }));
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hello from somewhere\n');
  const vastUser = (id: string) =>
    vast.state.instances().find((i) => String(i.id) === id)?.node?.user ?? 'root';
  const core = TenderCore.open({
    home: join(root, 'home'),
    env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
    timing: TEST_TIMING,
    providers: (d) => [
      new VastProvider({
        apiKey: vast.apiKey,
        baseUrl: vast.url,
        publicKey: () => ensureTenderKey(d.home).publicKey,
        failedHostsPath: failedHostsPath(d.home),
        sshUser: vastUser,
        containerEnvFiles: [`~/${VAST_ENV_FILE}`],
        now: d.now,
        http: { retry: { baseDelayMs: 20, maxDelayMs: 200, deadlineMs: 10_000 } },
      }),
      runpodProviderFor(runpod, d.home, { now: d.now }),
    ],
  });
  closers.push(() => core.close());
  return {
    runpod,
    vast,
    core,
    work,
    async run(input) {
      const started = await core.client.invoke('run.start', input);
      if (!started.ok) throw new Error(started.error.message);
      await core.waitRun(started.value.id);
      const view = await core.client.invoke('run.get', { runId: started.value.id });
      if (!view.ok) throw new Error(view.error.message);
      return view.value;
    },
  };
}

const job = (work: string) => ({
  name: 'failover-job',
  run: 'cat hello.txt; mkdir -p out; echo 7 > out/result.txt',
  outputs: ['out/result.txt'],
  workspace: { workdir: work, exclude: [] },
});

async function bootstrapLog(core: TenderCore, runId: string): Promise<string> {
  const logs = await core.client.invoke('logs.read', { runId, channel: 'bootstrap' });
  if (!logs.ok) throw new Error(logs.error.message);
  return logs.value.records.map((r) => ('line' in r ? r.line : '')).join('\n');
}

describe('a pool across marketplaces (RunPod and Vast.ai fakes)', () => {
  it('["runpod", "vastai"] with RunPod out of capacity rents on Vast.ai and says why', async () => {
    const s = await setup();
    s.runpod.faults.noCapacity();
    const view = await s.run({
      job: job(s.work),
      pool: { provider: ['runpod', 'vastai'], gpu: 'RTX 4090' },
    });
    expect(view.status, view.failedReason ?? '').toBe('completed');
    const [lease] = s.core.ledger.listLeases();
    expect(lease?.provider).toBe('vastai'); // the marketplace that made it
    expect(lease?.leaseId).toMatch(/^vastai:/);
    expect(lease?.state).toBe('destroyed');
    const node = s.core.ledger.getNode(view.nodes[0]!.id)!;
    expect(node.lease?.metadata.failover).toMatch(/^runpod: .*no longer any instances available/);
    // The host key follows the provider actually used.
    expect(node.desired.host?.provider).toBe('vastai');
    expect(node.desired.hostKey).toBe(hostKey(node.desired.host!));
    const log = await bootstrapLog(s.core, view.id);
    expect(log).toMatch(/renting on runpod/);
    expect(log).toMatch(/runpod could not rent: .*no longer any instances available/);
    expect(log).toMatch(/rented vastai:\d+ on vastai/);
    expect(s.runpod.state.pods()).toEqual([]); // nothing made on RunPod
    expect(s.vast.state.instances()).toHaveLength(1);
    expect(s.vast.state.liveInstances()).toEqual([]);
  });

  it('a node a list rented and kept warm serves the next run of that list', async () => {
    const s = await setup();
    s.runpod.faults.noCapacity();
    const pool = { provider: ['runpod', 'vastai'], gpu: 'RTX 4090' };
    const first = await s.run({ job: job(s.work), pool, keep: true });
    expect(first.status, first.failedReason ?? '').toBe('completed');
    s.runpod.faults.restoreCapacity(); // RunPod could rent now, but a warm node is there
    const second = await s.run({ job: job(s.work), pool, keep: true });
    expect(second.status, second.failedReason ?? '').toBe('completed');
    expect(s.vast.state.instances()).toHaveLength(1); // the same machine served both
    expect(s.runpod.state.pods()).toEqual([]);
    const node = s.core.ledger.getNode(second.nodes[0]!.id)!;
    expect(node.claimedFrom?.runId).toBe(first.id);
    expect(node.desired.host?.provider).toBe('vastai');
  });

  it('"cheapest" rents where the matching offer is cheapest; Vast.ai down never hides the RunPod lease', async () => {
    // RunPod's RTX 4090 is $0.34/h (community); Vast.ai's cheapest here is $1.00 + storage.
    const s = await setup(1.0);
    const started = await s.core.client.invoke('run.start', {
      job: { ...job(s.work), run: 'sleep 60' },
      pool: { provider: 'cheapest', gpu: 'RTX 4090' },
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await eventually(() => s.runpod.state.livePods().length === 1);
    await s.vast.stop(); // one marketplace unreachable
    let status: StatusView | null = null;
    await eventuallyAsync(async () => {
      const r = await s.core.client.invoke('status.get', {});
      status = r.ok ? r.value : null;
      return status?.unreachable.some((u) => u.provider === 'vastai') === true;
    });
    const live = status!.leases.filter((l) => l.state !== 'destroyed');
    expect(live.map((l) => l.leaseId)).toEqual([`runpod:${s.runpod.state.livePods()[0]!.id}`]);
    expect(status!.orphans).toEqual([]);
    const log = await bootstrapLog(s.core, runId);
    expect(log).toMatch(/cheapest first: runpod \$0\.3\d+\/h, vastai \$1\.\d+\/h/);
    await s.core.client.invoke('run.cancel', { runId });
    await s.core.waitRun(runId);
    const view = await s.core.client.invoke('run.get', { runId });
    expect(view.ok && view.value.status).toBe('cancelled');
    expect(s.runpod.state.livePods()).toEqual([]); // destroyed by RunPod, confirmed
  });
});
