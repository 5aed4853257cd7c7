// What each rank of a distributed run is told (docs/distributed.md): Tender's own names,
// torch's MASTER_ADDR/MASTER_PORT, and the SkyPilot and dstack aliases, so tasks written
// for those tools run unchanged. Pure.

/** One rank as the others reach it. */
export interface RankAddress {
  /** The address the other ranks reach this node at. */
  host: string;
  /** The node's GPUs (0 on a machine without). */
  gpus: number;
}

export interface GangEnvInput {
  rank: number;
  ranks: RankAddress[];
  /** The port rank 0 listens on (its own MASTER_PORT). */
  masterPort: number;
  /** The port the other ranks reach it at (differs behind a provider's port mapping). */
  masterPortSeen: number;
}

export function gangEnv(i: GangEnvInput): Record<string, string> {
  const n = String(i.ranks.length);
  const ips = i.ranks.map((r) => r.host).join('\n');
  const master = i.ranks[0]!.host;
  const gpus = String(i.ranks[i.rank]!.gpus);
  const rank = String(i.rank);
  return {
    TENDER_NODE_RANK: rank,
    TENDER_NUM_NODES: n,
    TENDER_NODE_IPS: ips,
    TENDER_GPUS_PER_NODE: gpus,
    MASTER_ADDR: master,
    MASTER_PORT: String(i.rank === 0 ? i.masterPort : i.masterPortSeen),
    SKYPILOT_NODE_RANK: rank,
    SKYPILOT_NODE_IPS: ips,
    SKYPILOT_NUM_NODES: n,
    SKYPILOT_NUM_GPUS_PER_NODE: gpus,
    DSTACK_NODE_RANK: rank,
    DSTACK_NODES_NUM: n,
    DSTACK_MASTER_NODE_IP: master,
    DSTACK_NODES_IPS: ips,
  };
}
