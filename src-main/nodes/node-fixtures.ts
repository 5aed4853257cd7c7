// Test fixtures shared by the NodeManager's table tests (not used by the app).
import type { NodeStage } from '../contract';
import type { LeaseFacts, NodeEndpoint } from '../providers/provider';
import { newNodeRecord, type NodeRecord } from './node-record';

export const T0 = 1_000_000;

export const lease: LeaseFacts = {
  provider: 'local',
  leaseId: 'local:abc',
  contractId: 'abc',
  label: 'tender-i-r-node-0',
  destroyHandle: { provider: 'local', leaseId: 'local:abc', contractId: 'abc' },
  pricePerHour: null,
  metadata: {},
};

export const endpoint: NodeEndpoint = { kind: 'local', dir: '/tmp/x' };

export const address = { runtime: 'node', bundleWord: 'a.cjs', dirWord: '/tmp/x' };

/** A node record in `stage`, with nothing else filled in unless `extra` says so. */
export function bareRecordIn(stage: NodeStage, extra: Partial<NodeRecord> = {}): NodeRecord {
  const base = newNodeRecord({
    runId: 'r-test01',
    logicalId: 'node-0',
    groupId: 'nodes',
    role: 'worker',
    label: 'tender-i-r-node-0',
    desired: { provider: 'local', shape: {}, verify: [], hostKey: 'hk1_x' },
    now: T0,
  });
  return { ...base, stage, ...extra };
}
