// Where the other ranks of a distributed run reach a node: a local node is this machine; a
// machine reached over SSH is its SSH host, unless its provider says its peers reach it
// elsewhere (Vast.ai: the public address, with the master port mapped to another).
import type { NodeEndpoint } from '../../providers/provider';

export interface PeerAddress {
  host: string;
  /** The port the others reach `port` of this node at. */
  portSeen(port: number): number;
}

export function peerAddress(endpoint: NodeEndpoint): PeerAddress {
  if (endpoint.kind === 'local') return { host: '127.0.0.1', portSeen: (p) => p };
  const peer = endpoint.peer;
  return {
    host: peer?.host ?? endpoint.host,
    portSeen: (p) => peer?.ports[String(p)] ?? p,
  };
}
