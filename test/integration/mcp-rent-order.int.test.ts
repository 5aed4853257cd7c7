// Two tender_run calls in a row, no max_price, against the Vast.ai fake with two offers: the
// second run is judged once the first has rented, so each run's cap is the price of an offer
// still there and both rent. Before, the second was judged at once with a cap past the first
// run's offer; when its create landed first it took the cheaper offer, and the first run
// failed with "no Vast.ai offer matches this pool" (the mcp-dead-server e2e test then waited
// for ever for its output).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectMcp, textOf, type McpTestSession } from '../helpers/mcp-session';
import { vastSetups } from '../helpers/vast-setups';
import { until, untilAsync } from '../helpers/wait';

const setup = vastSetups();

interface RunOut {
  run: { run_id: string; status: string; nodes: { lease_id: string | null }[] };
  price_cap_per_hour: number;
}

/** A provider's search for an offer to rent: it carries the pool's cap (the price search
 *  of tender_run's own judging carries none). */
const isCappedSearch = (c: { method: string; path: string; body: unknown }) =>
  c.method === 'POST' &&
  /\/api\/v0\/bundles\/?$/.test(c.path) &&
  typeof c.body === 'object' &&
  c.body !== null &&
  'dph_total' in c.body;

async function statusOf(agent: McpTestSession, runId: string): Promise<RunOut['run']> {
  const r = await agent.call('tender_status', { run_id: runId });
  return (r.structuredContent as { runs: RunOut['run'][] }).runs[0]!;
}

describe('tender mcp: runs started in a row (Vast.ai fake)', () => {
  it('the second run is judged once the first has rented: each is capped at an offer still there, and both rent', async () => {
    const { core, fake, work } = await setup({
      offers: [
        { gpu_name: 'RTX 4090', dph_base: 0.5 },
        { gpu_name: 'RTX 4090', dph_base: 0.55 },
      ],
    });
    const job = join(work, 'tender.toml');
    writeFileSync(job, '[job]\nname = "pair"\nrun = "sleep 600"\n');
    const agent = await connectMcp(core, { budgetUsd: 5, providers: ['vastai'] }, 'pair-agent');
    const ask = { job_file: job, provider: 'vastai', max_duration: '10m' };
    try {
      // The first run's search for its offer waits at the fake: the second run's create
      // could land first, as it did when the first run's search was slow.
      const held = fake.faults.holdNext(isCappedSearch);
      const first = await agent.call('tender_run', ask);
      expect(first.isError, textOf(first)).toBeFalsy();
      const firstOut = first.structuredContent as unknown as RunOut;
      await until(() => held.isHeld(), 10_000, 25, "the first run's offer search at the fake");

      const second = agent.call('tender_run', ask);
      // Judged at once (the defect), the second run rents within a moment: let the first
      // run's search go once an instance exists, or after 2 s in which none was made.
      const heldAt = Date.now();
      await until(
        () => fake.state.instances().length > 0 || Date.now() - heldAt > 2_000,
        10_000,
        25,
        'an instance, or 2 s without one',
      );
      held.release();
      const secondAnswer = await second;
      expect(secondAnswer.isError, textOf(secondAnswer)).toBeFalsy();
      // Answered only once the first run holds its lease.
      expect(
        core.ledger.listLeases().find((l) => l.runId === firstOut.run.run_id)?.leaseId,
      ).toBeTruthy();
      const secondOut = secondAnswer.structuredContent as unknown as RunOut;

      const runIds = [firstOut.run.run_id, secondOut.run.run_id];
      const views = await untilAsync(
        async () => {
          const vs = await Promise.all(runIds.map((id) => statusOf(agent, id)));
          const ended = vs.find((v) => v.status !== 'running' && v.status !== 'pending');
          if (ended) throw new Error(`run ${ended.run_id} ended ${ended.status} before renting`);
          return vs.every((v) => v.nodes[0]?.lease_id) ? vs : null;
        },
        { ms: 20_000, what: 'both runs to hold a lease' },
      );
      expect(views.map((v) => v.status)).toEqual(['running', 'running']);
      // Each cap is the price of the offer its run took, the cheaper one first.
      const leases = core.ledger.listLeases();
      const priceOf = (runId: string) => leases.find((l) => l.runId === runId)!.pricePerHour!;
      expect(priceOf(runIds[0]!)).toBeLessThan(priceOf(runIds[1]!));
      expect(priceOf(runIds[0]!)).toBeLessThanOrEqual(firstOut.price_cap_per_hour);
      expect(priceOf(runIds[1]!)).toBeLessThanOrEqual(secondOut.price_cap_per_hour);
      expect(fake.state.liveInstances()).toHaveLength(2);

      for (const runId of runIds) {
        const down = await agent.call('tender_down', { target: runId });
        expect(down.isError, textOf(down)).toBeFalsy();
      }
      expect(fake.state.liveInstances()).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});
