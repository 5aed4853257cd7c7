import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobSpecInput } from '../../src-main/contract';
import { labelPrefix } from '../../src-main/base/ids';
import { TenderCore } from '../../src-main/core/tender-core';
import { LocalProvider } from '../../src-main/providers/local/local-provider';
import type { CreateLeaseRequest, Provider } from '../../src-main/providers/provider';
import { agentBundlePath } from '../helpers/agent-bundle';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A local provider whose create can be held until the test lets it go. */
class GatedLocal extends LocalProvider {
  gate: Promise<void> | null = null;
  override async createLease(req: CreateLeaseRequest) {
    if (this.gate) await this.gate;
    return super.createLease(req);
  }
}

function setup(opts: { now?: () => number; reconcileEveryMs?: number } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'tender-reconcile-'));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'x.txt'), 'x\n');
  let local!: GatedLocal;
  const core = TenderCore.open({
    home,
    reconcile: opts.reconcileEveryMs !== undefined,
    timing: opts.reconcileEveryMs !== undefined ? { reconcileEveryMs: opts.reconcileEveryMs } : {},
    now: opts.now,
    env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
    providers: (d): Provider[] => [(local = new GatedLocal(d.home, d.now))],
  });
  cleanups.push(async () => {
    await core.close();
    try {
      execFileSync('pkill', ['-KILL', '-f', root]);
    } catch {
      // nothing left
    }
    rmSync(root, { recursive: true, force: true });
  });
  const job: JobSpecInput = {
    name: 'r',
    run: 'cat x.txt',
    workspace: { workdir: work, exclude: [] },
  };
  return { core, home, job, local: () => local };
}

describe('reconciliation with the provider', () => {
  it('adopts a lease whose create happened but was never recorded', async () => {
    const { core, job, local } = setup();
    let release!: () => void;
    local().gate = new Promise((r) => (release = r));
    const started = await core.client.invoke('run.start', {
      job,
      pool: { provider: 'local' },
      keep: true,
    });
    if (!started.ok) throw new Error(started.error.message);
    const rec = core.ledger.nodesOfRun(started.value.id)[0]!;
    expect(core.ledger.listLeases().map((l) => l.state)).toEqual(['requested']);
    // The provider has the lease (the create "happened"); the ledger does not know yet.
    await new LocalProvider(core.home).createLease({
      label: rec.label,
      runId: rec.runId,
      logicalId: rec.logicalId,
      shape: {},
    });

    const report = await core.reconciler!.tick('test');
    expect(report.adopted).toEqual([rec.label]);
    expect(core.ledger.listLeases()[0]).toMatchObject({
      state: 'created',
      leaseId: `local:${rec.label}`,
    });
    expect(report.orphans).toEqual([]);
    release();
    await core.waitRun(started.value.id);
    const down = await core.client.invoke('lease.destroyAll', {});
    expect(down.ok && down.value.allConfirmed).toBe(true);
  });

  it('marks a live lease the provider no longer has as lost, after the visibility grace', async () => {
    let skew = 0;
    const { core, job, home } = setup({ now: () => Date.now() + skew });
    const started = await core.client.invoke('run.start', {
      job,
      pool: { provider: 'local' },
      keep: true,
    });
    if (!started.ok) throw new Error(started.error.message);
    await core.waitRun(started.value.id);
    const rec = core.ledger.nodesOfRun(started.value.id)[0]!;
    expect(rec.stage).toBe('dormant');
    // Someone else destroyed it (a provider console, a dead-man switch…).
    await new LocalProvider(home).destroyLease(rec.lease!.destroyHandle);

    expect((await core.reconciler!.tick('test')).lost).toEqual([]); // too young to judge
    skew = 3 * 60_000;
    const report = await core.reconciler!.tick('test');
    expect(report.lost).toEqual([rec.label]);
    expect(core.ledger.listLeases()[0]).toMatchObject({ state: 'lost' });
    expect(core.ledger.getNode(rec.id)).toMatchObject({
      stage: 'failed',
      failedReason: 'lease lost: the provider no longer lists it',
    });
    expect(core.ledger.liveLeases()).toEqual([]);
  });

  it('notices a wake from sleep (a timer firing far too late) and reconciles at once', async () => {
    let skew = 0;
    const { core } = setup({ now: () => Date.now() + skew, reconcileEveryMs: 40 });
    const reasons: string[] = [];
    const tick = core.reconciler!.tick.bind(core.reconciler!);
    core.reconciler!.tick = (reason: string, all?: boolean) => (
      reasons.push(reason),
      tick(reason, all)
    );
    skew = 60 * 60_000; // the laptop slept an hour between two timer ticks
    while (!reasons.includes('wake')) await new Promise((r) => setTimeout(r, 10));
    expect(reasons).toContain('wake');
  });

  it('reports a labelled lease the ledger does not hold as an orphan, journaled once', async () => {
    const { core } = setup();
    const label = `${labelPrefix(core.ledger.installId())}ghost-node-0`;
    await new LocalProvider(core.home).createLease({
      label,
      runId: 'r-ghost',
      logicalId: 'node-0',
      shape: {},
    });
    await new LocalProvider(core.home).createLease({
      label: 'someone-else-entirely',
      runId: 'x',
      logicalId: 'y',
      shape: {},
    });
    const first = await core.reconciler!.tick('test', true);
    expect(first.orphans).toEqual([]); // local does not bill: not asked without live leases
    const status = await core.client.invoke('status.get', {});
    expect(status.ok && status.value.orphans.map((o) => o.label)).toEqual([label]);
    const down = await core.client.invoke('lease.destroyAll', { orphans: true });
    expect(down.ok && down.value.outcomes.map((o) => [o.label, o.confirmed])).toEqual([
      [label, true],
    ]);
    const after = await core.client.invoke('status.get', {});
    expect(after.ok && after.value.orphans).toEqual([]);
  });
});
