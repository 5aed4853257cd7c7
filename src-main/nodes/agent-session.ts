import type { NodeShell } from '../transport/node-shell';
import { AgentClient, type AgentClientHandlers } from './agent-client';
import { agentCommand, type AgentAddress } from './node-layout';

/** One short conversation with a node's agent over a shell of its own (not a job's link):
 *  `attach`, `fn`, then the channel and the shell closed, whatever `fn` did. For the
 *  callers that ask once and go: a probe, a host-setup append, a log backfill. */
export async function withAgent<T>(
  shell: NodeShell,
  address: AgentAddress,
  handlers: AgentClientHandlers,
  closeReason: string,
  fn: (client: AgentClient) => Promise<T>,
): Promise<T> {
  const client = AgentClient.open(shell, agentCommand(address, 'attach'), handlers);
  try {
    return await fn(client);
  } finally {
    client.close(closeReason);
    await shell.close().catch(() => {});
  }
}
