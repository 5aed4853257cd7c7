import type { Handlers, RunView } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import type { ReconcileReport } from '../reconcile/reconciler';
import type { RunService } from '../runs/run-service';
import { warmLeases } from '../runs/warm-view';
import { type GpuOf, leaseView, runWithGpu } from '../views/view-builders';

export interface StatusDeps {
  ledger: Pick<Ledger, 'listLeases' | 'dormantNodes' | 'servedRuns'>;
  now: () => number;
  runs: Pick<RunService, 'list'>;
  /** Every provider's labelled leases, reconciled with the ledger first (the writer adopts
   *  and marks lost; a reader only looks), reusing listings a few seconds old. */
  survey: () => Promise<ReconcileReport>;
  /** GPU summaries: the nodes with a running job read their stored samples first (this
   *  process may stream none of them: a `tender status`). */
  gpu?: { prime: (nodeIds: string[]) => Promise<void>; of: GpuOf };
}

/** `status.get`: every run and lease, and what the providers list that the ledger lost. */
export function statusHandlers(d: StatusDeps): Pick<Handlers, 'status.get'> {
  return {
    'status.get': async () => {
      const { orphans, unreachable } = await d.survey();
      const warm = warmLeases(d.ledger, d.now());
      return {
        runs: await withGpus(d.runs.list(), d.gpu),
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

async function withGpus(runs: RunView[], gpu: StatusDeps['gpu']): Promise<RunView[]> {
  if (!gpu) return runs;
  const live = runs.flatMap((r) =>
    r.status === 'running' || r.status === 'pending' ? r.nodes.map((n) => n.id) : [],
  );
  await gpu.prime(live);
  return runs.map((r) => runWithGpu(r, gpu.of));
}
