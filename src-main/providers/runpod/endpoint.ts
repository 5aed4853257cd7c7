import type { NodeEndpoint } from '../provider';
import { isRecord } from './errors';

/** Where SSH answers on a pod: "SSH over exposed TCP" — the `runtime.ports` entry with
 *  `privatePort` 22 that `isIpPublic` (RunPod docs use-ssh.mdx; SkyPilot's runpod
 *  instance.py reads the same). RunPod's proxy `<podHostId>@ssh.runpod.io` gives a PTY only
 *  (no exec, no scp), which Tender cannot use. Null while runtime or its ports are not there. */
export function sshAddressOf(pod: Record<string, unknown>): { host: string; port: number } | null {
  const runtime = isRecord(pod.runtime) ? pod.runtime : null;
  const ports = runtime && Array.isArray(runtime.ports) ? runtime.ports : [];
  for (const p of ports) {
    if (!isRecord(p) || p.privatePort !== 22 || p.isIpPublic !== true) continue;
    if (typeof p.type === 'string' && p.type.toLowerCase() !== 'tcp') continue;
    const host = typeof p.ip === 'string' ? p.ip.trim() : '';
    const port = p.publicPort;
    if (host && typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536)
      return { host, port };
  }
  return null;
}

/** Tender's endpoint for a pod: root (RunPod images log in as root) with Tender's own key
 *  (the image appended PUBLIC_KEY to authorized_keys), host key pinned to the lease
 *  (addresses of rented machines are reused by strangers later), no known_hosts. */
export function sshEndpoint(
  addr: { host: string; port: number },
  label: string,
  user = 'root',
): NodeEndpoint {
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
