import type { HelloResult } from '../../src-agent/wire/protocol';
import { AgentClient } from '../nodes/agent-client';
import { agentCommand } from '../nodes/node-layout';
import type { NodeRecord } from '../ledger/node-record';
import type { NodeShell } from '../transport/node-shell';

/** A warm node that does not answer within this is taken for dead (it died while idle). */
const CHECK_DEADLINE_MS = 20_000;

/** Why a claimed warm node cannot serve (null: it can): it must answer, its dead-man switch
 *  must not have fired, and it must advertise the key this job needs. Asked over a
 *  connection of its own, not the job's link: a dead node must not count as a job's lost
 *  node, and a fired switch seen here must not start the job's self-teardown path. */
export async function checkClaimedNode(
  connect: (signal: AbortSignal) => Promise<NodeShell>,
  rec: NodeRecord,
): Promise<string | null> {
  if (!rec.agent) return 'has no joined agent';
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), CHECK_DEADLINE_MS);
  let shell: NodeShell | null = null;
  let client: AgentClient | null = null;
  let hello: HelloResult;
  try {
    shell = await connect(abort.signal);
    client = AgentClient.open(shell, agentCommand(rec.agent.address, 'attach'));
    hello = await client.request('hello', {}, CHECK_DEADLINE_MS);
  } catch (err) {
    return `does not answer (${(err as Error).message})`;
  } finally {
    clearTimeout(timer);
    client?.close();
    await shell?.close().catch(() => {});
  }
  if (hello.teardown) return `tore itself down (${hello.teardown.reason})`;
  if (hello.hostKey !== rec.desired.hostKey)
    return `advertises ${hello.hostKey ?? 'no host key'}, this job needs ${rec.desired.hostKey}`;
  return null;
}
