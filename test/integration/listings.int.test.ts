import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { labelPrefix } from '../../src-main/base/ids';
import type { JobSpecInput } from '../../src-main/contract';
import { TenderCore } from '../../src-main/core/tender-core';
import { LocalProvider } from '../../src-main/providers/local/local-provider';
import type {
  CreateLeaseRequest,
  CreateLeaseResult,
  LeaseFacts,
} from '../../src-main/providers/provider';
import { VastProvider } from '../../src-main/providers/vastai/provider';
import { ensureTenderKey } from '../../src-main/transport/keys';
import { startFakeVast, type FakeVast } from '../fakes/vast';
import { agentBundlePath } from '../helpers/agent-bundle';
import { defaultOffers, openVastCore, TEST_TIMING } from '../helpers/vast-core';
import { until } from '../helpers/wait';

/** Cores still open; each is closed once, by the test or after it. */
const cores = new Set<TenderCore>();
/** Fakes to stop and folders to remove, once every core is closed. */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of [...cores]) await closeCore(c);
  for (const c of cleanups.splice(0).reverse()) await c();
});

function opened(core: TenderCore): TenderCore {
  cores.add(core);
  return core;
}

async function closeCore(core: TenderCore): Promise<void> {
  if (cores.delete(core)) await core.close();
}

/** A temp folder removed after the test. (No node runs in it: the local test starts no
 *  run, and the Vast nodes are the fake's, stopped with it.) */
function tempRoot(name: string): string {
  const root = mkdtempSync(join(tmpdir(), `tender-${name}-`));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

/** A local provider that counts how often it is listed. */
class CountingLocal extends LocalProvider {
  listings = 0;
  override async listLabeled(prefix: string): Promise<LeaseFacts[]> {
    this.listings++;
    return super.listLabeled(prefix);
  }
}

describe('status.get lists each provider once', () => {
  it('reuses a listing for 5 s of the injected clock, and lists again after a tear down', async () => {
    const root = tempRoot('listings');
    const home = join(root, 'home');
    let t = 1_800_000_000_000;
    let local!: CountingLocal;
    const core = opened(
      TenderCore.open({
        home,
        now: () => t,
        reconcile: false, // no start pass: every listing below is one the status asked for
        env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
        providers: (d) => [(local = new CountingLocal(d.home, d.now))],
      }),
    );
    const ghost = `${labelPrefix(core.ledger.installId())}ghost-node-0`;
    await new LocalProvider(home).createLease({
      label: ghost,
      runId: 'r-ghost',
      logicalId: 'node-0',
      shape: {},
    });
    const orphansOfStatus = async () => {
      const s = await core.client.invoke('status.get', {});
      if (!s.ok) throw new Error(s.error.message);
      return s.value.orphans.map((o) => o.label);
    };

    expect(await orphansOfStatus()).toEqual([ghost]);
    expect(local.listings).toBe(1);
    expect(await orphansOfStatus()).toEqual([ghost]); // at once: the same instant
    expect(local.listings).toBe(1);
    t += 5_001;
    expect(await orphansOfStatus()).toEqual([ghost]);
    expect(local.listings).toBe(2);

    const down = await core.client.invoke('lease.destroyAll', { orphans: true });
    expect(down.ok && down.value.outcomes.map((o) => [o.label, o.confirmed])).toEqual([
      [ghost, true],
    ]);
    const beforeStatus = local.listings;
    // Same instant as the last listing: only the tear down makes the status list again.
    expect(await orphansOfStatus()).toEqual([]);
    expect(local.listings).toBe(beforeStatus + 1);
  });
});

/** A Vast provider whose create reaches Vast.ai and then never returns: the process
 *  "crashed" after the provider call, before the ledger recorded the lease. */
class CrashAfterCreate extends VastProvider {
  creates = 0;
  override async createLease(
    req: CreateLeaseRequest,
    signal: AbortSignal,
  ): Promise<CreateLeaseResult> {
    await super.createLease(req, signal);
    this.creates++;
    return new Promise<never>(() => {});
  }
}

const INSTANCES_PATH = '/api/v0/instances/';
const instanceListings = (fake: FakeVast) =>
  fake.state.calls().filter((c) => c.method === 'GET' && c.path === INSTANCES_PATH).length;

describe('a resumed create', () => {
  it("lists the provider's instances once, and creates nothing twice", async () => {
    const fake = await startFakeVast({ offers: defaultOffers(2) });
    cleanups.push(() => fake.stop());
    const root = tempRoot('resumed-create');
    const home = join(root, 'home');
    const work = join(root, 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'x.txt'), 'x\n');
    const job: JobSpecInput = {
      name: 'resumed',
      run: 'cat x.txt',
      workspace: { workdir: work, exclude: [] },
    };

    let crashing!: CrashAfterCreate;
    const a = opened(
      TenderCore.open({
        home,
        reconcile: false, // nothing may adopt the lease in A: it stays `requested`
        timing: TEST_TIMING,
        env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
        providers: (d) => [
          (crashing = new CrashAfterCreate({
            apiKey: fake.apiKey,
            baseUrl: fake.url,
            publicKey: () => ensureTenderKey(d.home).publicKey,
            now: d.now,
            http: { retry: { baseDelayMs: 20, maxDelayMs: 200, deadlineMs: 10_000 } },
          })),
        ],
      }),
    );
    const started = await a.client.invoke('run.start', {
      job,
      pool: { provider: 'vastai', count: 1 },
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await until(() => crashing.creates === 1);
    expect(fake.state.instances()).toHaveLength(1);
    expect(a.ledger.listLeases().map((l) => l.state)).toEqual(['requested']);
    await closeCore(a);

    const b = opened(openVastCore(fake, home, { reconcile: false }).core);
    const listingsBefore = instanceListings(fake);
    const attached = await b.client.invoke('run.attach', { runId });
    if (!attached.ok) throw new Error(attached.error.message);
    const nodeId = b.ledger.nodesOfRun(runId)[0]!.id;
    const lease = await until(() =>
      b.ledger.listLeases().find((l) => l.nodeId === nodeId && l.state === 'created'),
    );

    expect(instanceListings(fake) - listingsBefore).toBe(1);
    expect(fake.state.instances()).toHaveLength(1);
    expect(lease.leaseId).toBe(`vastai:${fake.state.instances()[0]!.id}`);

    const down = await b.client.invoke('lease.destroyAll', {});
    expect(down.ok && down.value.allConfirmed).toBe(true);
    expect(fake.state.liveInstances()).toEqual([]);
  });
});
