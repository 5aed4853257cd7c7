import type { NodeShell } from '../transport/node-shell';
import { AgentClient, type AgentClientHandlers } from './agent-client';
import { agentCommand, type AgentAddress } from './node-layout';

/** A client of a running agent: its socket reached straight through the connection (no
 *  process started on the node: ~50 ms less), else an `attach` process (no socket known,
 *  an older agent, a server that forbids streamlocal forwarding, a local node, or nobody
 *  listening there: `attach` then says why). `isDirectRefused`: the socket was tried and
 *  could not be reached (a link asks no more on that node). */
export async function attachTo(
  shell: NodeShell,
  address: AgentAddress,
  socket: string | undefined,
  handlers: AgentClientHandlers = {},
): Promise<{ client: AgentClient; isDirectRefused: boolean }> {
  if (socket && shell.openSocket) {
    const direct = await shell.openSocket(socket).catch(() => null);
    if (direct) return { client: AgentClient.overSocket(direct, handlers), isDirectRefused: false };
    return { client: attach(shell, address, handlers), isDirectRefused: true };
  }
  return { client: attach(shell, address, handlers), isDirectRefused: false };
}

function attach(shell: NodeShell, address: AgentAddress, handlers: AgentClientHandlers) {
  return AgentClient.open(shell, agentCommand(address, 'attach'), handlers);
}
