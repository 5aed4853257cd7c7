import { describe, expect, it } from 'vitest';
import { gangEnv } from './gang-env';

const ranks = [
  { host: '10.0.0.1', gpus: 8 },
  { host: '10.0.0.2', gpus: 8 },
  { host: '10.0.0.3', gpus: 8 },
];

describe('gangEnv', () => {
  it('rank 0 of 3', () => {
    expect(gangEnv({ rank: 0, ranks, masterPort: 29500, masterPortSeen: 29500 })).toEqual({
      TENDER_NODE_RANK: '0',
      TENDER_NUM_NODES: '3',
      TENDER_NODE_IPS: '10.0.0.1\n10.0.0.2\n10.0.0.3',
      TENDER_GPUS_PER_NODE: '8',
      MASTER_ADDR: '10.0.0.1',
      MASTER_PORT: '29500',
      SKYPILOT_NODE_RANK: '0',
      SKYPILOT_NODE_IPS: '10.0.0.1\n10.0.0.2\n10.0.0.3',
      SKYPILOT_NUM_NODES: '3',
      SKYPILOT_NUM_GPUS_PER_NODE: '8',
      DSTACK_NODE_RANK: '0',
      DSTACK_NODES_NUM: '3',
      DSTACK_MASTER_NODE_IP: '10.0.0.1',
      DSTACK_NODES_IPS: '10.0.0.1\n10.0.0.2\n10.0.0.3',
    });
  });

  it.each([
    // rank, rank 0's own port, the port others reach it at → MASTER_PORT
    [0, 29500, 41234, '29500'],
    [1, 29500, 41234, '41234'],
    [2, 29500, 29500, '29500'],
  ])('rank %i: behind a port mapping %i→%i, MASTER_PORT is %s', (rank, own, seen, want) => {
    const env = gangEnv({ rank, ranks, masterPort: own, masterPortSeen: seen });
    expect(env.MASTER_PORT).toBe(want);
    expect(env.TENDER_NODE_RANK).toBe(String(rank));
    expect(env.MASTER_ADDR).toBe('10.0.0.1');
  });
});
