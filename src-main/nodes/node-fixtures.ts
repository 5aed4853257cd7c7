// Test fixtures shared by the NodeManager's table tests (not used by the app).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeStage } from '../contract';
import { Ledger } from '../ledger/ledger';
import type { LeaseFacts, NodeEndpoint } from '../providers/provider';
import { newNodeRecord, type NodeRecord } from '../ledger/node-record';

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

/** A writer ledger in a private temp folder, holding a run of `nodes` (each with its first
 *  job attempt) created at T0. `close()` closes it and removes the folder. */
export function tempLedgerWithRun(nodes: NodeRecord[]): { ledger: Ledger; close(): void } {
  const home = mkdtempSync(join(tmpdir(), 'tender-nodes-'));
  const ledger = Ledger.openWriter(home);
  const runId = nodes[0]?.runId ?? 'r-test01';
  ledger.createRun(
    {
      id: runId,
      jobId: `j-${runId}`,
      jobName: 'test',
      jobSpec: { name: 'test', run: 'true' },
      source: null,
      provider: 'local',
      count: nodes.length,
      pool: {},
      keep: false,
      outputsDir: join(home, 'outputs'),
      policy: {
        maxDurationMs: null,
        idleTimeoutMs: null,
        budgetUsd: null,
        afterJob: 'destroy',
        unreachableGraceMs: 1_800_000,
      },
    },
    nodes,
    T0,
  );
  return {
    ledger,
    close: () => {
      ledger.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
