// Warm claims on a real SQLite file: the hand-over of a kept node's lease to a new run is
// one transaction with the run's creation — all of it or none of it — and each run is
// charged its own share of the lease.
import { afterEach, describe, expect, it } from 'vitest';
import { summarize } from '../money/cost';
import type { Ledger } from './ledger';
import type { NodeRecord } from './node-record';
import { ClaimLostError } from './warm-claims';
import {
  cleanUpLedgers,
  commit,
  leaseOf,
  leaseRow,
  raw,
  RUN,
  seedRun,
  T0,
  tempHome,
  thrown,
  writer,
} from './ledger.test-util';

afterEach(cleanUpLedgers);

const HOUR = 3_600_000;

/** RUN's node-0 taken to dormant (joined, idle) with its job done, as a kept node is. */
function warmNode(ledger: Ledger): NodeRecord {
  let rec = seedRun(ledger, 'node-0')[0]!;
  const endpoint = { kind: 'local' as const, dir: '/tmp/n0' };
  const address = { runtime: 'node', bundleWord: 'a.cjs', dirWord: '/tmp/n0' };
  rec = commit(ledger, rec, { type: 'Start' }, T0);
  rec = commit(ledger, rec, { type: 'LeaseCreated', lease: leaseOf(rec), endpoint }, T0);
  rec = commit(ledger, rec, { type: 'BootstrapStarted', sessionId: 1 }, T0);
  const agent = { agentId: 'ag-1', version: '0.1.0', capabilities: {}, address };
  rec = commit(ledger, rec, { type: 'AgentJoined', agent }, T0);
  rec = commit(ledger, rec, { type: 'BootstrapClosed' }, T0);
  rec = commit(ledger, rec, { type: 'HandoffComplete' }, T0);
  ledger.updateAttempt(rec.id, { status: 'completed', phase: 'done' }, { kind: 't', data: {} }, T0);
  return rec;
}

function claimant(from: NodeRecord, runId: string, at: number): NodeRecord {
  return {
    ...from,
    id: `${runId}/node-0`,
    runId,
    claimedFrom: { nodeId: from.id, runId: from.runId, at, agentSeq: 7 },
  };
}

function createClaimingRun(
  ledger: Ledger,
  runId: string,
  node: NodeRecord,
  at: number,
  hooks: { insideClaim?: () => void } = {},
): void {
  ledger.createRun(
    {
      id: runId,
      jobId: runId,
      jobName: 'again',
      jobSpec: { name: 'again' },
      source: null,
      provider: 'local',
      count: 1,
      pool: {},
      keep: true,
      outputsDir: '/tmp/out',
      policy: {
        maxDurationMs: null,
        idleTimeoutMs: null,
        budgetUsd: null,
        afterJob: 'keep_warm',
        unreachableGraceMs: 1_800_000,
      },
    },
    [node],
    at,
    hooks,
  );
}

describe('claiming a warm node', () => {
  it('hands the lease to the new run in the transaction that creates it', () => {
    const home = tempHome();
    const ledger = writer(home);
    const a = warmNode(ledger);
    const T1 = T0 + 2 * HOUR;
    createClaimingRun(ledger, 'r-b', claimant(a, 'r-b', T1), T1);

    expect(ledger.getNode(a.id)).toMatchObject({ stage: 'released', releasedTo: 'r-b/node-0' });
    const b = ledger.getNode('r-b/node-0')!;
    expect(b).toMatchObject({ stage: 'dormant', ready: true, label: a.label });
    expect(leaseRow(ledger, a.label)).toMatchObject({
      runId: 'r-b',
      nodeId: 'r-b/node-0',
      state: 'created',
    });
    expect(ledger.servedRuns(a.label)).toEqual([RUN, 'r-b']);
    // The label column names the one holder; the released row keeps its record's label.
    const labels = raw(home, { readonly: true })
      .prepare('SELECT id, label FROM nodes ORDER BY id')
      .all() as { id: string; label: string }[];
    expect(labels).toEqual([
      { id: 'r-b/node-0', label: a.label },
      { id: a.id, label: `${a.label}~r-b` },
    ]);
    // Released nodes hold nothing: only the new holder is unfinished.
    expect(ledger.unfinishedNodes().map((n) => n.id)).toEqual(['r-b/node-0']);
    expect(ledger.journal('r-b').map((e) => e.kind)).toContain('lease.claimed');
  });

  it('charges each run its own share of the lease', () => {
    const ledger = writer(tempHome());
    const a = warmNode(ledger);
    const T1 = T0 + 2 * HOUR;
    createClaimingRun(ledger, 'r-b', claimant(a, 'r-b', T1), T1);
    const T2 = T1 + HOUR;
    const costA = summarize(ledger.leasesOfRun(RUN), T2);
    const costB = summarize(ledger.leasesOfRun('r-b'), T2);
    expect(costA.accruedUsd).toBeCloseTo(0.5 * 2); // $0.5/h for its two hours
    expect(costA.burnUsdPerHour).toBe(0); // it bills the new run now
    expect(costB.accruedUsd).toBeCloseTo(0.5 * 1);
    expect(costB.burnUsdPerHour).toBe(0.5);
  });

  it('a node already claimed cannot be claimed again: nothing of the second run is written', () => {
    const ledger = writer(tempHome());
    const a = warmNode(ledger);
    createClaimingRun(ledger, 'r-b', claimant(a, 'r-b', T0 + 1), T0 + 1);
    const err = thrown(() => createClaimingRun(ledger, 'r-c', claimant(a, 'r-c', T0 + 2), T0 + 2));
    expect(err).toBeInstanceOf(ClaimLostError);
    expect((err as Error).message).toMatch(/no longer free: it is released/);
    expect(ledger.getRun('r-c')).toBeUndefined();
    expect(ledger.getNode('r-c/node-0')).toBeUndefined();
    expect(ledger.servedRuns(a.label)).toEqual([RUN, 'r-b']);
  });

  it('a crash inside the claim leaves the warm node free and the new run unwritten', () => {
    const ledger = writer(tempHome());
    const a = warmNode(ledger);
    const crash = () => {
      throw new Error('killed mid-claim');
    };
    expect(() =>
      createClaimingRun(ledger, 'r-b', claimant(a, 'r-b', T0 + 1), T0 + 1, { insideClaim: crash }),
    ).toThrow('killed mid-claim');
    expect(ledger.getNode(a.id)).toMatchObject({ stage: 'dormant' });
    expect(ledger.getRun('r-b')).toBeUndefined();
    expect(leaseRow(ledger, a.label)?.runId).toBe(RUN);
    expect(ledger.servedRuns(a.label)).toEqual([]);
    // And it can be claimed afterwards.
    createClaimingRun(ledger, 'r-b', claimant(a, 'r-b', T0 + 2), T0 + 2);
    expect(ledger.getNode(a.id)?.stage).toBe('released');
  });

  it('a lease that left (destroying) is not claimed', () => {
    const ledger = writer(tempHome());
    const a = warmNode(ledger);
    const gone = commit(ledger, a, { type: 'Destroy', reason: 'idle' }, T0 + 5);
    expect(gone.stage).toBe('destroying');
    const err = thrown(() => createClaimingRun(ledger, 'r-b', claimant(a, 'r-b', T0 + 6), T0 + 6));
    expect(err).toBeInstanceOf(ClaimLostError);
  });

  it('serves a chain of runs: each share ends when the next run claims', () => {
    const ledger = writer(tempHome());
    const a = warmNode(ledger);
    createClaimingRun(ledger, 'r-b', claimant(a, 'r-b', T0 + HOUR), T0 + HOUR);
    const b = ledger.getNode('r-b/node-0')!;
    createClaimingRun(ledger, 'r-c', claimant(b, 'r-c', T0 + 3 * HOUR), T0 + 3 * HOUR);
    expect(ledger.servedRuns(a.label)).toEqual([RUN, 'r-b', 'r-c']);
    const now = T0 + 4 * HOUR;
    const share = (run: string) => summarize(ledger.leasesOfRun(run), now).accruedUsd;
    expect([share(RUN), share('r-b'), share('r-c')].map((x) => Number(x.toFixed(6)))).toEqual([
      0.5, 1, 0.5,
    ]);
  });
});
