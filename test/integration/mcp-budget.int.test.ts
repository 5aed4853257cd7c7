// A runaway agent against the Vast.ai fake, through the MCP server over the SDK's protocol:
// a loop of tender_run stops at the session's budget before anything more is rented; what
// was rented can never cost more than the budget, even run to its max duration; the ledger
// and the fake agree on it; tender_down of a run the session did not start is refused;
// --max-nodes refuses the next run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectMcp, textOf, type McpTestSession } from '../helpers/mcp-session';
import { defaultOffers } from '../helpers/vast-core';
import { vastSetups } from '../helpers/vast-setups';
import { until, untilAsync } from '../helpers/wait';

const setup = vastSetups();

interface RunOut {
  run: { run_id: string; nodes: { lease_id: string | null }[]; status: string };
  commits_usd: number;
  price_cap_per_hour: number;
  run_budget_usd: number | null;
}

const runOf = (r: Awaited<ReturnType<McpTestSession['call']>>) =>
  r.structuredContent as unknown as RunOut;

async function status(agent: McpTestSession, runId: string) {
  const r = await agent.call('tender_status', { run_id: runId });
  return (r.structuredContent as { runs: RunOut['run'][] }).runs[0]!;
}

/** The runs' views once each holds a lease; fails at once on a run that ended, and after
 *  30 s (within the test's 60 s) naming the runs still without one. */
async function untilEachLeased(agent: McpTestSession, runs: RunOut[]) {
  let last: RunOut['run'][] = [];
  return untilAsync(
    async () => {
      last = await Promise.all(runs.map((a) => status(agent, a.run.run_id)));
      const ended = last.find((v) => v.status !== 'running' && v.status !== 'pending');
      if (ended) throw new Error(`run ${ended.run_id} ended ${ended.status} before renting`);
      return last.every((v) => v.nodes[0]?.lease_id) ? last : null;
    },
    {
      ms: 30_000,
      what: 'every accepted run to hold a lease',
      describe: () => JSON.stringify(last.filter((v) => !v.nodes[0]?.lease_id)),
    },
  );
}

describe('tender mcp: a budget the agent cannot exceed (Vast.ai fake)', () => {
  it('a runaway loop of tender_run stops at the budget; the ledger and the fake agree on what was rented', async () => {
    const { core, fake, work } = await setup({ offers: defaultOffers(8) });
    const job = join(work, 'tender.toml');
    writeFileSync(job, '[job]\nname = "runaway"\nrun = "sleep 600"\n');
    const agent = await connectMcp(
      core,
      { budgetUsd: 1.2, providers: ['vastai'] },
      'runaway-agent',
    );
    try {
      const offers = await agent.call('tender_offers', {});
      const cheapest = (offers.structuredContent as { offers: { price_per_hour: number }[] })
        .offers[0]!.price_per_hour;

      // As fast as the agent can ask, no max_price: the offers set each cap.
      const accepted: RunOut[] = [];
      let refusal = '';
      for (let i = 0; i < 8 && !refusal; i++) {
        const r = await agent.call('tender_run', {
          job_file: job,
          provider: 'vastai',
          max_duration: '1h',
        });
        if (r.isError) refusal = textOf(r);
        else accepted.push(runOf(r));
      }
      expect(refusal).toMatch(
        /^conflict: this run commits up to \$[0-9.]+ \(1 × \$[0-9.]+\/h × 1 h\); the session's budget has \$[0-9.]+ of \$1\.20 left\nhint: .*tender_down/,
      );
      expect(accepted.length).toBeGreaterThanOrEqual(2);
      expect(accepted[0]!.price_cap_per_hour).toBeCloseTo(cheapest, 3);
      // Each run is bounded on its nodes by what it commits.
      for (const a of accepted) expect(a.run_budget_usd).toBeCloseTo(a.commits_usd, 9);

      // Every accepted run rents its one node; the refused one rents nothing.
      const leased = await untilEachLeased(agent, accepted);
      const instances = fake.state.instances();
      expect(instances).toHaveLength(accepted.length);
      const ledger = core.ledger.listLeases().filter((l) => l.provider === 'vastai');
      expect(ledger.map((l) => l.leaseId).sort()).toEqual(
        instances.map((i) => `vastai:${i.id}`).sort(),
      );
      expect(leased.map((v) => v.nodes[0]!.lease_id).sort()).toEqual(
        ledger.map((l) => l.leaseId).sort(),
      );
      // What was rented, run to its max duration (1 h), stays within the budget; each lease
      // at or under its run's cap.
      const worstCase = instances.reduce((n, i) => n + i.dphTotal * 1, 0);
      expect(worstCase).toBeLessThanOrEqual(1.2 + 1e-6);
      for (const l of ledger) {
        const run = accepted.find((a) => a.run.run_id === l.runId)!;
        expect(l.pricePerHour!).toBeLessThanOrEqual(run.price_cap_per_hour + 1e-9);
      }

      // The agent tears down what it started: nothing is left on the fake.
      for (const a of accepted) {
        const down = await agent.call('tender_down', { target: a.run.run_id });
        expect(down.isError, textOf(down)).toBeFalsy();
        expect((down.structuredContent as { all_confirmed: boolean }).all_confirmed).toBe(true);
      }
      expect(fake.state.liveInstances()).toEqual([]);
      expect(fake.state.instances()).toHaveLength(accepted.length);
      // Attributable to the agent in the ledger.
      for (const a of accepted)
        expect(core.ledger.getRun(a.run.run_id)?.origin).toBe('mcp:runaway-agent');
    } finally {
      await agent.close();
    }
  });

  it('eight tender_run calls at once are judged one after another: what was rented fits the budget', async () => {
    const { core, fake, work } = await setup({ offers: defaultOffers(8) });
    const job = join(work, 'tender.toml');
    writeFileSync(job, '[job]\nname = "burst"\nrun = "sleep 600"\n');
    const agent = await connectMcp(core, { budgetUsd: 1, providers: ['vastai'] }, 'burst-agent');
    try {
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          agent.call('tender_run', {
            job_file: job,
            provider: 'vastai',
            max_price: 0.5,
            max_duration: '1h',
          }),
        ),
      );
      const accepted = results.filter((r) => !r.isError).map(runOf);
      const refused = results.filter((r) => r.isError).map(textOf);
      expect(accepted.length).toBeGreaterThanOrEqual(2);
      expect(refused.length).toBeGreaterThan(0);
      for (const t of refused)
        expect(t).toMatch(/this run commits up to \$0\.50 \(1 × \$0\.50\/h × 1 h\)/);
      await untilEachLeased(agent, accepted);
      // Every lease that was made, run to its max duration, within the budget.
      expect(fake.state.instances()).toHaveLength(accepted.length);
      const worstCase = fake.state.instances().reduce((n, i) => n + i.dphTotal * 1, 0);
      expect(worstCase).toBeLessThanOrEqual(1 + 1e-6);
      for (const a of accepted) await agent.call('tender_down', { target: a.run.run_id });
      expect(fake.state.liveInstances()).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it('refuses tender_down and tender_cancel of a run the session did not start, unless --allow-down-any', async () => {
    const { core, work } = await setup({ offers: defaultOffers(1) });
    const agent = await connectMcp(core, { budgetUsd: 1 });
    const trusted = await connectMcp(core, { budgetUsd: 1, allowDownAny: true });
    try {
      // A person's run, started in the app (the same core).
      const started = await core.client.invoke('run.start', {
        job: { name: 'mine', run: 'sleep 600', workspace: { workdir: work, exclude: [] } },
        pool: { provider: 'local' },
      });
      if (!started.ok) throw new Error(started.error.message);
      const runId = started.value.id;
      const lease = await until(
        () => core.ledger.listLeases().find((l) => l.runId === runId && l.leaseId)?.leaseId,
        30_000,
        25,
        "the person's local run to hold a lease",
      );
      for (const [tool, args] of [
        ['tender_down', { target: runId }],
        ['tender_down', { target: lease }],
        ['tender_cancel', { run_id: runId }],
      ] as const) {
        const r = await agent.call(tool, args);
        expect(r.isError).toBe(true);
        expect(textOf(r)).toMatch(/was not started by this MCP session[\s\S]*--allow-down-any/);
      }
      expect((await status(agent, runId)).status).toBe('running');

      const down = await trusted.call('tender_down', { target: runId });
      expect(down.isError, textOf(down)).toBeFalsy();
      expect(
        core.ledger
          .listLeases()
          .filter((l) => l.runId === runId)
          .map((l) => l.state),
      ).toEqual(['destroyed']);
    } finally {
      await agent.close();
      await trusted.close();
    }
  });

  it('--max-nodes refuses the run that would go over it, and lets one through once nodes are down; --providers refuses a provider it does not name', async () => {
    const { core, work } = await setup({ offers: defaultOffers(1) });
    const job = join(work, 'tender.toml');
    writeFileSync(job, '[job]\nname = "pair"\nrun = "sleep 600"\n');
    const agent = await connectMcp(core, { budgetUsd: null, maxNodes: 2, providers: ['local'] });
    try {
      const pair = await agent.call('tender_run', { job_file: job, count: 2 });
      expect(pair.isError, textOf(pair)).toBeFalsy();
      const runsBefore = core.ledger.listRuns().length;
      // A provider the session may not use is refused before anything else.
      const elsewhere = await agent.call('tender_run', { job_file: job, provider: 'vastai' });
      expect(textOf(elsewhere)).toMatch(/may not use vastai \(tender mcp --providers local\)/);
      const third = await agent.call('tender_run', { job_file: job });
      expect(third.isError).toBe(true);
      expect(textOf(third)).toMatch(
        /this run needs 1 node; the session has 2 of its 2 \(--max-nodes\) live/,
      );
      expect(core.ledger.listRuns()).toHaveLength(runsBefore); // refused before anything

      await agent.call('tender_down', { target: runOf(pair).run.run_id });
      const again = await agent.call('tender_run', { job_file: job });
      expect(again.isError, textOf(again)).toBeFalsy();
      await agent.call('tender_down', { target: runOf(again).run.run_id });
    } finally {
      await agent.close();
    }
  });
});
