import type { NodeShell } from '../transport/node-shell';
import { AgentClient } from './agent-client';
import { agentCommand, type AgentAddress } from './node-layout';

/** A client of the started agent: its socket reached straight through the connection (no
 *  process started on the node), else an `attach` process (an older agent, a server that
 *  forbids streamlocal forwarding, a local node). */
export async function attachTo(
  shell: NodeShell,
  address: AgentAddress,
  socket: string | undefined,
): Promise<AgentClient> {
  if (socket && shell.openSocket) {
    const direct = await shell.openSocket(socket).catch(() => null);
    if (direct) return AgentClient.overSocket(direct);
  }
  return AgentClient.open(shell, agentCommand(address, 'attach'));
}
