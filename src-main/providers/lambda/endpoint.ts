import type { NodeEndpoint } from '../provider';

/** Lambda's SSH user: every Lambda Stack image logs in as `ubuntu` (with sudo). */
export const DEFAULT_SSH_USER = 'ubuntu';
/** Lambda VMs answer SSH on their public ip, port 22 (no relay, no port mapping). */
export const DEFAULT_SSH_PORT = 22;

/** Tender's endpoint for a Lambda VM: Tender's own key, host key pinned to the lease (the
 *  addresses of rented machines are reused by strangers later), no known_hosts. The same
 *  conventions as a Vast.ai instance (../vastai/endpoint.ts). */
export function sshEndpoint(host: string, port: number, label: string, user: string): NodeEndpoint {
  return {
    kind: 'ssh',
    host,
    port,
    user,
    authRef: 'tender',
    hostKeyScope: `lease:${label}`,
    knownHosts: false,
  };
}
