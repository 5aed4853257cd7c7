import type { ClusterView, Handlers } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import {
  clusterKeyScope,
  readClusters,
  writeClusters,
  type ClusterEntry,
} from '../../providers/slurm/clusters-file';

export interface ClusterDeps {
  home: string;
  ledger: Pick<Ledger, 'getHostKey'>;
  requireWriter: () => void;
}

type ClusterHandlers = Pick<Handlers, 'clusters.list' | 'clusters.add' | 'clusters.remove'>;

/** Slurm clusters (clusters.toml, docs/slurm.md). */
export function clusterHandlers(d: ClusterDeps): ClusterHandlers {
  const view = (c: ClusterEntry): ClusterView => ({
    ...c,
    hostKey: d.ledger.getHostKey(clusterKeyScope(c.name))?.fingerprint ?? null,
  });
  return {
    'clusters.list': async () => readClusters(d.home).map(view),
    'clusters.add': async (input) => {
      d.requireWriter();
      const clusters = readClusters(d.home);
      if (clusters.some((c) => c.name === input.name))
        throw new TenderError(
          'bad_input',
          `a cluster named "${input.name}" exists`,
          'remove it first (`tender clusters remove`), or pick another name',
        );
      const entry: ClusterEntry = {
        name: input.name,
        host: input.host,
        port: input.port,
        user: input.user,
        identityFile: input.identityFile ?? null,
        partition: input.partition ?? null,
        account: input.account ?? null,
        qos: input.qos ?? null,
        gpuHourUsd: input.gpuHourUsd ?? null,
      };
      writeClusters(d.home, [...clusters, entry]);
      return view(entry);
    },
    'clusters.remove': async ({ name }) => {
      d.requireWriter();
      const clusters = readClusters(d.home);
      const rest = clusters.filter((c) => c.name !== name);
      if (rest.length !== clusters.length) writeClusters(d.home, rest);
      return { removed: rest.length !== clusters.length };
    },
  };
}
