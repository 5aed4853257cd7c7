import type { Handlers } from '../api/dispatch';
import { previewWorkspace } from '../jobs/workspace/preview';
import { syncRunWorkspace } from '../jobs/workspace/run-sync';
import { scanWorkspace } from '../jobs/workspace/scan';
import { findHost, readHosts, writeHosts } from '../providers/ssh/hosts-file';
import { makeUiHandlers } from './ui-handlers';
import { makeCostHandlers } from './cost-handlers';
import { hostViews, leaseView } from './views';
import { reconcile } from './reconcile';
import { destroyAll, destroyNodes } from './teardown';
import type { TenderCore } from './tender-core';
import { TenderError } from '../base/tender-error';

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
      // What is shown is reconciled first (the writer adopts, marks lost; a reader cannot).
      await core.reconciler?.tick('status', true);
      const { orphans, unreachable } = await reconcile(core.ledger, core.providers);
      return {
        runs: core.listRuns(),
        leases: core.ledger.listLeases().map((l) => leaseView(l, core.now())),
        orphans: orphans.map(({ provider, leaseId, label }) => ({ provider, leaseId, label })),
        unreachable,
      };
    },
    'logs.read': async ({ runId, nodeId, channel, fromSeq, limit, tail }) => {
      if (!core.ledger.getRun(runId)) throw new TenderError('not_found', `no run ${runId}`);
      const node = nodeId && !nodeId.includes('/') ? `${runId}/${nodeId}` : nodeId;
      return {
        records: await core.datastream.read(runId, {
          nodeId: node,
          channel,
          fromSeq,
          limit,
          tail,
        }),
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
    'lease.destroyAll': ({ leases, orphans }) => destroyAll(core, { leases, orphans }),
    'lease.list': async () => core.ledger.listLeases().map((l) => leaseView(l, core.now())),
    'offers.search': async ({ provider, filter }) => {
      const p = core.providers.get(provider);
      if (!p.searchOffers)
        throw new TenderError(
          'bad_input',
          `${provider} has no offers to search`,
          'offers come from marketplaces such as vastai',
        );
      return p.searchOffers(filter, AbortSignal.timeout(120_000));
    },
    'workspace.preview': async ({ workdir, exclude }) => {
      const scan = await scanWorkspace(workdir, exclude);
      return { root: scan.root, ...previewWorkspace(scan) };
    },
    'workspace.sync': ({ runId }) => syncRunWorkspace(core, runId),
    'hosts.list': async () => hostViews(core),
    'hosts.add': async (input) => {
      core.requireWriter();
      const hosts = readHosts(core.home);
      if (hosts.some((h) => h.name === input.name)) {
        throw new TenderError(
          'conflict',
          `a host named "${input.name}" exists`,
          'remove it first, or pick another name',
        );
      }
      writeHosts(core.home, [...hosts, { ...input, identityFile: input.identityFile ?? null }]);
      return hostViews(core).find((h) => h.name === input.name)!;
    },
    'hosts.remove': async ({ name }) => {
      core.requireWriter();
      const hosts = readHosts(core.home);
      const claimed = hostViews(core).find((h) => h.name === name)?.claimedBy;
      if (claimed)
        throw new TenderError(
          'conflict',
          `host "${name}" is in use by run ${claimed}`,
          'tear that run down first',
        );
      const rest = hosts.filter((h) => h.name !== name);
      if (rest.length !== hosts.length) writeHosts(core.home, rest);
      return { removed: rest.length !== hosts.length };
    },
    'hosts.forgetKey': async ({ name }) => {
      core.requireWriter();
      findHost(core.home, name);
      const had = core.ledger.getHostKey(`host:${name}`) !== undefined;
      if (had) core.ledger.forgetHostKey(`host:${name}`, core.now());
      return { forgotten: had };
    },
    'terminal.open': async ({ nodeId, cols, rows, term }) => {
      const rec = core.ledger.getNode(nodeId);
      if (!rec) throw new TenderError('not_found', `no node ${nodeId}`);
      return { terminalId: await core.terminals.open(rec, { cols, rows, term }) };
    },
    'terminal.input': async ({ terminalId, data }) => {
      await core.terminals.input(terminalId, Buffer.from(data, 'base64'));
      return {};
    },
    'terminal.resize': async ({ terminalId, cols, rows }) => {
      core.terminals.resize(terminalId, cols, rows);
      return {};
    },
    ...makeUiHandlers(core),
    ...makeCostHandlers(core),
    'terminal.close': async ({ terminalId }) => {
      core.terminals.close(terminalId);
      return {};
    },
  };
}
