import type { NodeView } from '../../../src-main/contract';

/** A node's rank: `node-N` is rank N; null for a logical id of another form. */
export function rankOf(node: Pick<NodeView, 'logicalId'>): number | null {
  const m = /^node-(\d+)$/.exec(node.logicalId);
  return m ? Number(m[1]) : null;
}

/** What a node is called where a run is shown: "rank 1" in a distributed run, else its
 *  logical id ("node-1"). */
export function nodeName(node: Pick<NodeView, 'logicalId'>, isDistributed: boolean): string {
  const rank = isDistributed ? rankOf(node) : null;
  return rank === null ? node.logicalId : `rank ${rank}`;
}
