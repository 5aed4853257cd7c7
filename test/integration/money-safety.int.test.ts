// Money safety (docs/money-safety.md) against the faithful Vast.ai fake (real sshd nodes):
// budgets that tear down, idle autostop of nodes kept warm, max duration, and the account key
// never reaching a node.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vastSetups } from '../helpers/vast-setups';
import { until } from '../helpers/wait';

const setup = vastSetups();

const longJob = (work: string) => ({
  name: 'long',
  run: 'echo training; sleep 600',
  workspace: { workdir: work, exclude: [] },
});

describe('money safety', () => {
  it('budget: a run that reaches its budget is torn down when reached, with the reason', async () => {
    const t = await setup({ offers: [{ gpu_name: 'RTX 4090', dph_base: 36 }] });
    // $36/h ≈ 1¢/s: a 4¢ budget lasts about 4 s of billed time.
    const view = await t.run({
      job: longJob(t.work),
      pool: { provider: 'vastai', count: 1 },
      policy: { budgetUsd: 0.04 },
    });
    expect(view.status).toBe('failed');
    expect(view.failedReason).toMatch(/budget reached \(\$0\.04\d* of \$0\.04\)/);
    expect(view.nodes[0]!.stage).toBe('destroyed');
    const journal = t.core.ledger.journal(view.id);
    const warned = journal.find((e) => e.kind === 'run.budget_warning');
    const reached = journal.find((e) => e.kind === 'run.budget_reached')!;
    expect(warned).toBeDefined();
    expect(warned!.ts).toBeLessThan(reached.ts);
    // Reached within one check period (200 ms) of the moment the budget was spent.
    const lease = t.core.ledger.leasesOfRun(view.id)[0]!;
    const spentAt = lease.createdAt! + (0.04 / lease.pricePerHour!) * 3_600_000;
    expect(reached.ts).toBeGreaterThanOrEqual(spentAt - 1);
    expect(reached.ts - spentAt).toBeLessThan(200 + 400);
    expect(view.cost.budgetWarning).toBe(true);
    expect(t.fake.state.liveInstances()).toEqual([]);
    // What was spent, as `tender cost` and the run's chart show it.
    const report = await t.core.client.invoke('cost.report', {});
    if (!report.ok) throw new Error(report.error.message);
    const spent = t.core.ledger.leasesOfRun(view.id);
    expect(report.value.runs).toEqual([
      { runId: view.id, jobName: 'long', usd: expect.any(Number), budgetUsd: 0.04, leases: 1 },
    ]);
    expect(report.value.runs[0]!.usd).toBeCloseTo(
      (spent[0]!.pricePerHour! * (spent[0]!.destroyedAt! - spent[0]!.createdAt!)) / 3_600_000,
      6,
    );
    expect(report.value.days.reduce((sum, d) => sum + d.usd, 0)).toBeCloseTo(
      report.value.totalUsd,
      6,
    );
    expect(report.value.billing).toBe(0);
    const series = await t.core.client.invoke('cost.series', { runId: view.id, points: 10 });
    if (!series.ok) throw new Error(series.error.message);
    const usd = series.value.points.map((p) => p.usd);
    expect(usd).toEqual([...usd].sort((a, b) => a - b));
    expect(usd.at(-1)).toBeCloseTo(report.value.runs[0]!.usd, 6);
    expect(series.value.budgetUsd).toBe(0.04);
    const log = (
      await t.core.datastream.read(view.id, {
        nodeId: view.nodes[0]!.id,
        channel: 'events',
        fromSeq: 1,
        limit: 10_000,
      })
    ).map((r) => r.line);
    expect(log.some((l) => /warning: this run has spent 8\d% of its budget/.test(l))).toBe(true);
  });

  it('idle: a node kept warm after its job destroys itself once idle for idle_timeout', async () => {
    const t = await setup({ offers: [{ gpu_name: 'RTX 4090', dph_base: 0.3 }] });
    const view = await t.run({
      job: { name: 'quick', run: 'echo done', workspace: { workdir: t.work, exclude: [] } },
      pool: { provider: 'vastai', count: 1 },
      policy: { afterJob: 'keep_warm', idleTimeoutMs: 1_500, unreachableGraceMs: 60_000 },
    });
    expect(view.status).toBe('completed');
    expect(view.nodes[0]!.stage).toBe('dormant'); // kept warm
    const node = view.nodes[0]!.id;
    const rec = await until(() => {
      const r = t.core.ledger.getNode(node);
      return r?.stage === 'destroyed' ? r : null;
    });
    expect(rec.destroyReason).toMatch(/^destroyed by its own dead-man switch: idle for /);
    const [destroy] = t.fake.state.destroyLog();
    expect(destroy?.by).toBe('instance'); // the node's own key, not the account's
    const lease = t.core.ledger.leasesOfRun(view.id)[0]!;
    expect(lease.state).toBe('destroyed');
    expect(lease.reason).toMatch(/dead-man switch: idle/);
  });

  it('max duration: a lease that reaches it is stopped and destroyed, with the reason', async () => {
    const t = await setup({ offers: [{ gpu_name: 'RTX 4090', dph_base: 0.3 }] });
    const view = await t.run({
      job: longJob(t.work),
      pool: { provider: 'vastai', count: 1 },
      policy: { maxDurationMs: 5_000 },
    });
    expect(view.status).toBe('failed');
    expect(view.failedReason).toMatch(/max duration 5s reached/);
    expect(view.nodes[0]!.stage).toBe('destroyed');
    expect(t.fake.state.liveInstances()).toEqual([]);
  });

  it('the account API key never reaches a node: not in its files, not in any process environment', async () => {
    const t = await setup({ offers: [{ gpu_name: 'RTX 4090', dph_base: 0.3 }] });
    const started = await t.core.client.invoke('run.start', {
      job: longJob(t.work),
      pool: { provider: 'vastai', count: 1 },
    });
    if (!started.ok) throw new Error(started.error.message);
    await t.core.waitJobsStarted(started.value.id);
    // Let a few renewals of the dead-man switch happen.
    await new Promise((r) => setTimeout(r, 1_000));
    const inst = t.fake.state.liveInstances()[0]!;
    const key = t.fake.apiKey;
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        const st = statSync(p, { throwIfNoEntry: false });
        if (!st) continue;
        if (st.isDirectory()) walk(p);
        else if (st.isFile() && st.size < 64 * 1024 * 1024 && readFileSync(p).includes(key))
          found.push(p);
      }
    };
    walk(inst.node.home);
    const uid = statSync(inst.node.home).uid;
    let processes = 0;
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      const st = statSync(`/proc/${pid}`, { throwIfNoEntry: false });
      if (!st || st.uid !== uid) continue;
      processes += 1;
      for (const f of ['environ', 'cmdline']) {
        try {
          if (readFileSync(`/proc/${pid}/${f}`).includes(key)) found.push(`/proc/${pid}/${f}`);
        } catch {
          // the process ended meanwhile
        }
      }
    }
    expect(processes).toBeGreaterThan(1); // sshd sessions, the agent, the job
    expect(found).toEqual([]);
    // The node does hold its own narrow key (that is what it destroys itself with).
    expect(readFileSync(join(inst.node.home, '.vast-env')).includes(inst.apiKey)).toBe(true);
    await t.core.client.invoke('run.cancel', { runId: started.value.id });
    await t.core.waitRun(started.value.id);
  });
});
