// A node may run inside an allocation that something else holds (a cluster job's batch
// script): it is reached through a gateway that outlives the allocation (the cluster's login
// node), and every command is passed into the allocation there (transport/srun-shell.ts).
// What such an endpoint means is said here, at the provider seam, so the code above asks in
// these words and never reads a provider's own endpoint fields.
import type { NodeEndpoint } from './provider';
import type { NodeShell } from '../transport/node-shell';
import { SrunShell, type LoginShell } from '../transport/srun-shell';

type SshEndpoint = Extract<NodeEndpoint, { kind: 'ssh' }>;

/** A node inside an allocation, as the code above the providers needs it. */
export interface Allocation {
  /** Where the node is reached through: an ordinary SSH endpoint, still there after the
   *  allocation ended (the node's files can be read through it then). */
  gateway: SshEndpoint;
  /** The node's shell, over a shell on the gateway. */
  enter(gatewayShell: LoginShell): NodeShell;
}

/** The allocation an endpoint's node runs inside; null for a node reached directly. Such a
 *  node's agent is started by what holds the allocation (`agent start --holder`). */
export function allocationOf(endpoint: NodeEndpoint): Allocation | null {
  if (endpoint.kind !== 'ssh' || endpoint.slurmJobId === undefined) return null;
  const { slurmJobId: jobId, ...gateway } = endpoint;
  return { gateway, enter: (gatewayShell) => new SrunShell(gatewayShell, jobId) };
}
