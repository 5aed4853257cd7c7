// `node.setup` on the node: append to its agent's host-setup FIFO over a connection of
// its own (as a terminal or a sync does), and with `wait` follow the entry to its exit and
// read back its log section.
import type {
  AgentLogRecord,
  HostSetupAppend,
  HostSetupEntry,
} from '../../../src-agent/wire/protocol';
import type { CommandOutput } from '../../contract';
import type { NodeRecord } from '../../ledger/node-record';
import { TenderError } from '../../base/tender-error';
import { type AgentClient, AgentRequestError } from '../../nodes/agent-client';
import { withAgent } from '../../nodes/agent-session';
import type { NodeShell } from '../../transport/node-shell';

/** Polls the entry's state this often while it runs (an install takes minutes). */
const POLL_MS = 500;

export type NodeSetupResult = CommandOutput<'node.setup'>;

export async function appendHostSetup(
  rec: NodeRecord,
  connect: () => Promise<NodeShell>,
  entry: HostSetupAppend,
  wait: boolean,
): Promise<NodeSetupResult> {
  const name = rec.lease?.leaseId ?? rec.label;
  const shell = await connect().catch((err: Error) => {
    throw new TenderError(
      'infrastructure',
      `could not reach node ${name}: ${err.message}`,
      '`tender status` shows whether it is still up',
    );
  });
  const records: AgentLogRecord[] = [];
  const onLog = (batch: AgentLogRecord[]) => records.push(...batch);
  return withAgent(shell, rec.agent!.address, { onLog }, 'host setup appended', (client) =>
    appendAndFollow(client, rec, name, records, entry, wait),
  );
}

async function appendAndFollow(
  client: AgentClient,
  rec: NodeRecord,
  name: string,
  records: AgentLogRecord[],
  entry: HostSetupAppend,
  wait: boolean,
): Promise<NodeSetupResult> {
  try {
    const { id, position } = await client.request('host_setup.append', entry);
    let e = await entryOf(client, id);
    while (wait && e.state !== 'exited') {
      await new Promise((r) => setTimeout(r, POLL_MS));
      e = await entryOf(client, id);
    }
    const lines = wait ? await section(client, records, e) : [];
    return {
      nodeId: rec.id,
      leaseId: rec.lease?.leaseId ?? null,
      id,
      position,
      state: e.state,
      code: e.code,
      signal: e.signal,
      lines,
    };
  } catch (err) {
    if (err instanceof TenderError) throw err;
    // The agent refused (it is shutting down, or too old to know the op): say which node.
    const code = err instanceof AgentRequestError ? 'conflict' : 'infrastructure';
    throw new TenderError(code, `node ${name}: ${(err as Error).message}`);
  }
}

async function entryOf(client: AgentClient, id: number): Promise<HostSetupEntry> {
  const { entries } = await client.request('host_setup.status', {});
  const e = entries.find((x) => x.id === id);
  if (!e) throw new Error(`the agent lost host_setup[${id}]`);
  return e;
}

/** The entry's records, from its header to its exit line: entries run one at a time, so
 *  every host_setup record between those two seqs is its own. */
async function section(
  client: AgentClient,
  records: AgentLogRecord[],
  e: HostSetupEntry,
): Promise<NodeSetupResult['lines']> {
  if (e.firstSeq === null || e.lastSeq === null) return [];
  const last = e.lastSeq;
  await client.request('subscribe', { fromSeq: e.firstSeq });
  while (!records.some((r) => r.seq >= last)) {
    if (client.isClosed) break; // the entry's state is the answer; its lines are on the node
    await new Promise((r) => setTimeout(r, 20));
  }
  return records
    .filter((r) => r.seq <= last && r.src === 'host_setup')
    .map((r) => ({ stream: r.stream, line: r.line }));
}
