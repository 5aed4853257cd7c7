import type { Handlers } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import { billedInterval, costByDay, costSeries, leaseCost, summarize } from '../../money/cost';
import { TenderError } from '../../base/tender-error';

/** `cost.report` and `cost.series`: what the ledger says was billed. */
export interface CostDeps {
  ledger: Pick<Ledger, 'listLeases' | 'leasesOfRun' | 'getRun'>;
  now: () => number;
}

export function costHandlers(core: CostDeps): Pick<Handlers, 'cost.report' | 'cost.series'> {
  return {
    'cost.report': async ({ sinceMs }) => {
      const now = core.now();
      const since = now - sinceMs;
      const all = core.ledger.listLeases();
      // A lease counts when any of its billed time falls in the window.
      const leases = all.filter((l) => {
        const iv = billedInterval(l, now);
        return iv !== null && iv[1] > since;
      });
      const inWindow = (l: (typeof leases)[number]) => leaseCost(l, now, since, now);
      const runs = new Map<string, { usd: number; leases: number }>();
      for (const l of leases) {
        if (!l.runId) continue;
        const r = runs.get(l.runId) ?? { usd: 0, leases: 0 };
        r.usd += inWindow(l);
        r.leases += 1;
        runs.set(l.runId, r);
      }
      const live = summarize(all, now);
      return {
        since,
        now,
        totalUsd: leases.reduce((sum, l) => sum + inWindow(l), 0),
        burnUsdPerHour: live.burnUsdPerHour,
        billing: live.billing,
        days: costByDay(leases, since, now),
        runs: [...runs.entries()].map(([runId, r]) => {
          const run = core.ledger.getRun(runId);
          return {
            runId,
            jobName: run?.jobName ?? '(unknown)',
            usd: r.usd,
            budgetUsd: run?.policy?.budgetUsd ?? null,
            leases: r.leases,
          };
        }),
        leases: leases.map((l) => {
          const iv = billedInterval(l, now);
          return {
            label: l.label,
            leaseId: l.leaseId,
            provider: l.provider,
            runId: l.runId,
            state: l.state,
            pricePerHour: l.pricePerHour,
            from: iv?.[0] ?? null,
            to: l.destroyedAt,
            usd: inWindow(l),
            reason: l.reason,
          };
        }),
      };
    },
    'cost.series': async ({ runId, points }) => {
      const run = core.ledger.getRun(runId);
      if (!run) throw new TenderError('not_found', `no run ${runId}`);
      const now = core.now();
      const leases = core.ledger.leasesOfRun(runId);
      const ends = leases.map((l) => billedInterval(l, now)?.[1] ?? run.createdAt);
      const to = run.endedAt ? Math.max(run.endedAt, ...ends) : now;
      return {
        runId,
        budgetUsd: run.policy?.budgetUsd ?? null,
        points: costSeries(leases, run.createdAt, Math.max(to, run.createdAt + 1), points),
      };
    },
  };
}
