import type { Handlers } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import type { ReconcileReport } from '../reconcile/reconciler';
import type { RunService } from '../runs/run-service';
import { warmLeases } from '../runs/warm-view';
import { leaseView } from '../views/view-builders';

export interface StatusDeps {
  ledger: Pick<Ledger, 'listLeases' | 'dormantNodes' | 'servedRuns'>;
  now: () => number;
  runs: Pick<RunService, 'list'>;
  /** Every provider's labelled leases, reconciled with the ledger first (the writer adopts
   *  and marks lost; a reader only looks), reusing listings a few seconds old. */
  survey: () => Promise<ReconcileReport>;
}

/** `status.get`: every run and lease, and what the providers list that the ledger lost. */
export function statusHandlers(d: StatusDeps): Pick<Handlers, 'status.get'> {
  return {
    'status.get': async () => {
      const { orphans, unreachable } = await d.survey();
      const warm = warmLeases(d.ledger, d.now());
      return {
        runs: d.runs.list(),
        leases: d.ledger.listLeases().map((l) =>
          leaseView(l, d.now(), {
            servedRuns: d.ledger.servedRuns(l.label),
            warm: warm.get(l.label),
          }),
        ),
        orphans: orphans.map(({ provider, leaseId, label }) => ({ provider, leaseId, label })),
        unreachable,
      };
    },
  };
}
