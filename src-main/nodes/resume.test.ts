import { describe, expect, it } from 'vitest';
import { NodeStage as NodeStageSchema, type NodeStage } from '../contract';
import type { NodeEffect } from './messages';
import { bareRecordIn, endpoint, lease, T0 } from './node-fixtures';
import type { NodeRecord } from '../ledger/node-record';
import { resume } from './resume';

const recordIn = bareRecordIn;

const withLease = { lease };
const withBoth = { lease, connection: endpoint };
const bootstrap: NodeEffect[] = [{ type: 'StartBootstrap', endpoint, lease }];

// Every stage, with the records it can be committed in. A missing stage fails below.
const table: Record<NodeStage, [string, Partial<NodeRecord>, NodeEffect[]][]> = {
  new: [['fresh', {}, []]],
  lease_requested: [
    [
      'create call may have happened before a crash: look the label up first',
      {},
      [{ type: 'CreateLease', lookupFirst: true }],
    ],
    // Destroy arrived while the create was in flight: find what carries the label, never create.
    ['destroy requested', { destroyRequested: true }, [{ type: 'FindLease' }]],
  ],
  lease_created: [
    ['with a lease', withLease, [{ type: 'LookupEndpoint', lease }]],
    ['without a lease (corrupt)', {}, []],
  ],
  endpoint_known: [
    ['with lease and endpoint', withBoth, bootstrap],
    ['without an endpoint (corrupt)', withLease, []],
  ],
  bootstrap_running: [
    ['with lease and endpoint', withBoth, bootstrap],
    ['without a lease (corrupt)', { connection: endpoint }, []],
  ],
  agent_joined: [
    ['with lease and endpoint', withBoth, bootstrap],
    ['without an endpoint (corrupt)', withLease, []],
  ],
  handed_off: [['ready', { ...withBoth, ready: true }, [{ type: 'CompleteHandoff' }]]],
  dormant: [['kept', { ...withBoth, ready: true }, []]],
  failed: [
    ['without a lease', {}, []],
    // Not resumed by the node: teardown finds it through unfinishedNodes().
    ['with a lease', withBoth, []],
  ],
  destroying: [
    [
      'with a lease',
      { ...withLease, destroyAttempts: 3 },
      // At once: a restart is not a reason to wait out the backoff.
      [{ type: 'DestroyLease', handle: lease.destroyHandle, delayMs: 0 }],
    ],
    ['without a lease (corrupt)', {}, []],
  ],
  destroyed: [['confirmed', { ...withLease, destroyedAt: T0 }, []]],
  released: [['its lease is a later run’s', { ...withLease, stage: 'released' }, []]],
};

describe('resume', () => {
  it('covers every stage', () => {
    expect(Object.keys(table).sort()).toEqual([...NodeStageSchema.options].sort());
  });

  for (const [stage, rows] of Object.entries(table) as [NodeStage, (typeof table)[NodeStage]][]) {
    for (const [name, extra, effects] of rows) {
      it(`${stage}, ${name}`, () => {
        const rec = recordIn(stage, extra);
        const frozen = structuredClone(rec);

        expect(resume(rec)).toEqual(effects);
        expect(rec).toEqual(frozen); // pure: reads the record, never changes it
      });
    }
  }
});
