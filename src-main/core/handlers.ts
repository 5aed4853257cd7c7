import type { Handlers } from '../api/dispatch';
import { leaseView } from './views';
import { reconcile } from './reconcile';
import { destroyAll, destroyNodes } from './teardown';
import type { TenderCore } from './tender-core';
import { TenderError } from './tender-error';

/** The contract's commands, served by the core. No transport adds logic of its own. */
export function makeHandlers(core: TenderCore): Handlers {
  return {
    'run.start': (args) => core.startRun(args),
    'run.get': async ({ runId }) => core.runView(runId),
    'run.list': async () => core.listRuns(),
    'run.cancel': async ({ runId }) => core.cancelRun(runId),
    'run.detach': async ({ runId }) => core.detachRun(runId),
    'run.attach': async ({ runId }) => core.attachRun(runId),
    'status.get': async () => {
      const { orphans, unreachable } = await reconcile(core.ledger, core.providers);
      return {
        runs: core.listRuns(),
        leases: core.ledger.listLeases().map(leaseView),
        orphans: orphans.map(({ provider, leaseId, label }) => ({ provider, leaseId, label })),
        unreachable,
      };
    },
    'logs.read': async ({ runId, nodeId, channel, fromSeq, limit }) => {
      if (!core.ledger.getRun(runId)) throw new TenderError('not_found', `no run ${runId}`);
      const node = nodeId && !nodeId.includes('/') ? `${runId}/${nodeId}` : nodeId;
      return {
        records: await core.datastream.read(runId, { nodeId: node, channel, fromSeq, limit }),
      };
    },
    'node.destroy': async ({ nodeId }) => {
      core.requireWriter();
      const rec = core.ledger.getNode(nodeId);
      if (!rec) throw new TenderError('not_found', `no node ${nodeId}`);
      const driver = core.drivers.get(rec.runId);
      const job = driver?.jobs.get(nodeId);
      if (job) job.abandon('destroyed by the user');
      else await destroyNodes(core, [rec], 'destroyed by the user');
      return core.runView(rec.runId).nodes.find((n) => n.id === nodeId)!;
    },
    'lease.destroyAll': ({ orphans }) => destroyAll(core, { orphans }),
    'lease.list': async () => core.ledger.listLeases().map(leaseView),
  };
}
