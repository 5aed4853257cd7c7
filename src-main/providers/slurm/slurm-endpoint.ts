// Where a Slurm node is reached: through its cluster's login node, inside its job's
// allocation (read above the providers only through providers/allocation.ts).
import type { NodeEndpoint } from '../provider';
import { execCapture, shq } from '../../transport/exec-helpers';
import type { NodeShell } from '../../transport/node-shell';
import { clusterKeyScope, type ClusterEntry } from './clusters-file';

type SshEndpoint = Extract<NodeEndpoint, { kind: 'ssh' }>;

/** The login node, as an endpoint: your own machine's rules (known_hosts too, the key pinned
 *  to the cluster). */
export function loginEndpoint(c: ClusterEntry): SshEndpoint {
  return {
    kind: 'ssh',
    host: c.host,
    port: c.port,
    user: c.user,
    authRef: c.identityFile ?? 'tender',
    hostKeyScope: clusterKeyScope(c.name),
    knownHosts: true,
  };
}

/** A running job's node: the login node, inside the allocation `jobId`; `peerHost` is where
 *  the other nodes of a distributed run reach it (its compute node). */
export function allocationEndpoint(
  c: ClusterEntry,
  jobId: string,
  peerHost: string | null,
): SshEndpoint {
  return {
    ...loginEndpoint(c),
    slurmJobId: jobId,
    ...(peerHost ? { peer: { host: peerHost, ports: {} } } : {}),
  };
}

/** A compute node's address (`NodeAddr`, else its name), from `scontrol show node`. */
export async function nodeAddress(
  shell: NodeShell,
  node: string,
  signal: AbortSignal,
): Promise<string | null> {
  const r = await execCapture(shell, `scontrol show node ${shq(node)} -o`, { signal });
  if (r.code !== 0) return /^[A-Za-z0-9._-]+$/.test(node) ? node : null;
  return /\bNodeAddr=(\S+)/.exec(r.stdout)?.[1] ?? node;
}
