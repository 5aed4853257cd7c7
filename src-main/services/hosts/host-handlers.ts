import type { Handlers, HostView } from '../../contract';
import { LIVE_LEASE_STATES } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import { findHost, readHosts, writeHosts } from '../../providers/ssh/hosts-file';
import { SSH_KIND } from '../../providers/ssh/ssh-provider';

export interface HostDeps {
  home: string;
  ledger: Pick<Ledger, 'listLeases' | 'getHostKey' | 'forgetHostKey'>;
  now: () => number;
  requireWriter: () => void;
}

type HostHandlers = Pick<Handlers, 'hosts.list' | 'hosts.add' | 'hosts.remove' | 'hosts.forgetKey'>;

/** Your own machines (hosts.toml), for the ssh provider. */
export function hostHandlers(d: HostDeps): HostHandlers {
  return {
    'hosts.list': async () => hostViews(d),
    'hosts.add': async (input) => {
      d.requireWriter();
      const hosts = readHosts(d.home);
      if (hosts.some((h) => h.name === input.name)) {
        throw new TenderError(
          'conflict',
          `a host named "${input.name}" exists`,
          'remove it first, or pick another name',
        );
      }
      writeHosts(d.home, [...hosts, { ...input, identityFile: input.identityFile ?? null }]);
      return hostViews(d).find((h) => h.name === input.name)!;
    },
    'hosts.remove': async ({ name }) => {
      d.requireWriter();
      const hosts = readHosts(d.home);
      const claimed = hostViews(d).find((h) => h.name === name)?.claimedBy;
      if (claimed)
        throw new TenderError(
          'conflict',
          `host "${name}" is in use by run ${claimed}`,
          'tear that run down first',
        );
      const rest = hosts.filter((h) => h.name !== name);
      if (rest.length !== hosts.length) writeHosts(d.home, rest);
      return { removed: rest.length !== hosts.length };
    },
    'hosts.forgetKey': async ({ name }) => {
      d.requireWriter();
      findHost(d.home, name);
      const had = d.ledger.getHostKey(`host:${name}`) !== undefined;
      if (had) d.ledger.forgetHostKey(`host:${name}`, d.now());
      return { forgotten: had };
    },
  };
}

/** hosts.toml, with the run holding each host now (a live ssh lease on it). */
export function hostViews(core: HostDeps): HostView[] {
  const live = core.ledger.listLeases(LIVE_LEASE_STATES).filter((l) => l.provider === SSH_KIND);
  return readHosts(core.home).map((h) => ({
    name: h.name,
    host: h.host,
    port: h.port,
    user: h.user,
    identityFile: h.identityFile,
    claimedBy:
      live.find((l) => l.leaseId?.startsWith(`ssh:${h.name}/`) || l.destroyHandle?.host === h.name)
        ?.runId ?? null,
  }));
}
