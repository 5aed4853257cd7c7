import type { NodeEndpoint } from '../provider';
import { isRecord } from './errors';

/** Where SSH answers on a Vast.ai instance. */
export interface SshAddress {
  host: string;
  port: number;
  /** `direct`: the host's own port mapped to the container's 22; `proxy`: Vast.ai's relay. */
  via: 'direct' | 'proxy';
}

/** The address vast.py's ssh-url uses: the direct mapping `ports["22/tcp"][0].HostPort` on
 *  `public_ipaddr` when there is one (faster, no relay), else `ssh_host:ssh_port` (+1 for a
 *  jupyter-launched image, whose ssh_port is Jupyter's). Null while neither is known. */
export function sshAddressOf(inst: Record<string, unknown>): SshAddress | null {
  const ip = typeof inst.public_ipaddr === 'string' ? inst.public_ipaddr.trim() : '';
  const mapped = isRecord(inst.ports) ? inst.ports['22/tcp'] : undefined;
  const first: unknown = Array.isArray(mapped) ? mapped[0] : undefined;
  const hostPort = port(isRecord(first) ? first.HostPort : undefined);
  if (ip && hostPort !== null) return { host: ip, port: hostPort, via: 'direct' };

  const relay = typeof inst.ssh_host === 'string' ? inst.ssh_host.trim() : '';
  const relayPort = port(inst.ssh_port);
  if (!relay || relayPort === null) return null;
  const jupyter = typeof inst.image_runtype === 'string' && inst.image_runtype.includes('jupyter');
  return { host: relay, port: jupyter ? relayPort + 1 : relayPort, via: 'proxy' };
}

/** Tender's endpoint for a rented machine: root (what Vast.ai's ssh launch logs in as) with
 *  Tender's own key, host key pinned to the lease (addresses of rented machines are reused by
 *  strangers later), no known_hosts. */
export function sshEndpoint(addr: SshAddress, label: string, user = 'root'): NodeEndpoint {
  return {
    kind: 'ssh',
    host: addr.host,
    port: addr.port,
    user,
    authRef: 'tender',
    hostKeyScope: `lease:${label}`,
    knownHosts: false,
  };
}

/** Where other nodes reach this instance: its public address and each mapped port but
 *  SSH's (`ports["29500/tcp"][0].HostPort`); null without a public address or mappings. */
export function peerOf(
  inst: Record<string, unknown>,
): { host: string; ports: Record<string, number> } | null {
  const ip = typeof inst.public_ipaddr === 'string' ? inst.public_ipaddr.trim() : '';
  if (!ip || !isRecord(inst.ports)) return null;
  const ports: Record<string, number> = {};
  for (const [key, list] of Object.entries(inst.ports)) {
    const m = /^(\d+)\/tcp$/.exec(key);
    const first: unknown = Array.isArray(list) ? list[0] : undefined;
    const hostPort = port(isRecord(first) ? first.HostPort : undefined);
    if (m && m[1] !== '22' && hostPort !== null) ports[m[1]!] = hostPort;
  }
  return Object.keys(ports).length > 0 ? { host: ip, ports } : null;
}

function port(v: unknown): number | null {
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n < 65536 ? n : null;
}
