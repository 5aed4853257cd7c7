import type { Handlers } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { RunService } from '../runs/run-service';
import { leaseView } from '../views/view-builders';
import { destroyAll, destroyNodes, destroyTarget, type TeardownDeps } from './teardown';

export interface LeaseDeps extends TeardownDeps {
  runs: TeardownDeps['runs'] & Pick<RunService, 'view'>;
  /** Listings made before a destroy are not shown again. */
  afterDestroy: () => void;
}

type LeaseHandlers = Pick<
  Handlers,
  'node.destroy' | 'lease.destroyAll' | 'lease.destroy' | 'lease.list'
>;

/** Leases: destroy one node's, one run's or one lease's, tear down all (orphans too), list. */
export function leaseHandlers(d: LeaseDeps): LeaseHandlers {
  return {
    'node.destroy': async ({ nodeId }) => {
      d.requireWriter();
      const rec = d.ledger.getNode(nodeId);
      if (!rec) throw new TenderError('not_found', `no node ${nodeId}`);
      const job = d.runs.jobOf(nodeId);
      if (job) job.abandon('destroyed by the user');
      else await destroyNodes(d, [rec], 'destroyed by the user');
      d.afterDestroy();
      return d.runs.view(rec.runId).nodes.find((n) => n.id === nodeId)!;
    },
    'lease.destroyAll': async ({ leases, orphans }) => {
      try {
        return await destroyAll(d, { leases, orphans });
      } finally {
        d.afterDestroy();
      }
    },
    'lease.destroy': async ({ target }) => {
      try {
        return await destroyTarget(d, target);
      } finally {
        d.afterDestroy();
      }
    },
    'lease.list': async () => d.ledger.listLeases().map((l) => leaseView(l, d.now())),
  };
}
