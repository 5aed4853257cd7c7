import { describe, expect, it } from 'vitest';
import type { NodeStage } from '../../contract';
import type { LeaseRow } from '../../ledger/rows';
import type { NodeRecord } from '../../ledger/node-record';
import { address, bareRecordIn, endpoint, lease } from '../../nodes/node-fixtures';
import { nodeForSetup } from './node-setup-target';

const joined = (stage: NodeStage, extra: Partial<NodeRecord> = {}) =>
  bareRecordIn(stage, {
    lease,
    connection: endpoint,
    agent: {
      agentId: 'ag-1',
      version: 'dev',
      joinedAt: 1,
      handedOffAt: 1,
      address,
      capabilities: {},
    },
    ...extra,
  } as Partial<NodeRecord>);

/** The nodes, and their one lease row, which names the last of them (a claim moves it). */
function ledgerOf(nodes: NodeRecord[]) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const holder = nodes.filter((n) => n.lease).at(-1);
  const leases = holder
    ? [{ label: holder.label, leaseId: holder.lease!.leaseId, nodeId: holder.id } as LeaseRow]
    : [];
  return { getNode: (id: string) => byId.get(id), listLeases: () => leases };
}

describe('which node `tender node setup <target>` means', () => {
  const live = joined('dormant');

  it.each([
    ['its lease id', 'local:abc'],
    ['its lease label', 'tender-i-r-node-0'],
    ['its node id', 'r-test01/node-0'],
  ])('finds a live node by %s', (_what, target) => {
    expect(nodeForSetup(ledgerOf([live]), target).id).toBe(live.id);
  });

  it('follows a released warm node to the node of the run that claimed it', () => {
    const holder = joined('dormant', { id: 'r-later/node-0', runId: 'r-later' });
    const old = joined('released', { releasedTo: holder.id });
    expect(nodeForSetup(ledgerOf([old, holder]), old.id).id).toBe(holder.id);
  });

  // [what, node, message, hint]
  // prettier-ignore
  const refusals: [string, NodeRecord | null, RegExp, RegExp][] = [
    ['an unknown target', null, /^no lease or node nope$/, /`tender status` lists/],
    ['a destroyed node', joined('destroyed'), /is destroyed: its host setup went with it/, /tender run --keep/],
    ['a failed node', joined('failed'), /is failed/, /tender run --keep/],
    ['a node still bootstrapping', bareRecordIn('bootstrap_running', { lease }), /is bootstrap_running: its agent has not joined yet/, /dormant or handed_off/],
  ];
  it.each(refusals)('refuses %s, naming the fix', (_what, node, message, hint) => {
    const target = node ? node.id : 'nope';
    let err: { message: string; hint?: string } | undefined;
    try {
      nodeForSetup(ledgerOf(node ? [node] : []), target);
    } catch (e) {
      err = e as { message: string; hint?: string };
    }
    expect(err?.message).toMatch(message);
    expect(err?.hint).toMatch(hint);
  });
});
