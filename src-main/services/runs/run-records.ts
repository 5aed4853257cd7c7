import { join } from 'node:path';
import {
  type CommandArgs,
  type JobSpec,
  type LeasePolicy,
  parseConstraint,
  parseDuration,
  type PoolSpec,
} from '../../contract';
import { homePaths } from '../../base/paths';
import { leaseLabel } from '../../base/ids';
import type { Datastream } from '../../datastream/datastream';
import { hostDeclaration, hostKey } from '../../jobs/host/host-declaration';
import { redactJob } from '../../jobs/secrets/redact-job';
import type { Ledger } from '../../ledger/ledger';
import { newNodeRecord, type NodeDesired, type NodeRecord } from '../../ledger/node-record';
import { ClaimLostError } from '../../ledger/warm-claims';
import type { NewCell } from '../../ledger/cells';
import type { NodeShape } from '../../providers/pool-shapes';
import { placeOnWarmNodes } from './warm-claim';

export interface RunRecordsDeps {
  home: string;
  ledger: Pick<Ledger, 'installId' | 'createRun' | 'dormantNodes'>;
  datastream: Pick<Datastream, 'lastSeq'>;
  now: () => number;
  crashPoint: (name: string) => void;
}

export interface RunToCreate {
  runId: string;
  job: JobSpec;
  args: CommandArgs<'run.start'>;
  provider: string;
  shapes: NodeShape[];
  policy: LeasePolicy;
  /** A sweep's cells, written queued with the run. */
  cells?: NewCell[];
}

/** Writes the run and its nodes: each slot takes a warm node when one with the job's host
 *  key is free (the claim is part of the same transaction), else a new lease's node.
 *  Another run taking a planned warm node first makes it plan again. */
export function createRunRecords(
  d: RunRecordsDeps,
  c: RunToCreate,
): { nodes: NodeRecord[]; passedOver: string[] } {
  const { runId, job, args, shapes } = c;
  const host = hostDeclaration(job, args.pool, c.provider);
  const key = hostKey(host);
  const install = d.ledger.installId();
  const logicalId = (i: number) => `node-${i}`;
  const desired = (i: number): NodeDesired => ({
    provider: c.provider,
    shape: shapes[i]!,
    verify: args.pool.verify,
    hostKey: key,
    host,
    ...(job.constraints.length > 0 ? { constraints: job.constraints } : {}),
    ...(job.distributed ? { openPorts: [job.master_port] } : {}),
    ...(c.policy.maxDurationMs !== null ? { maxDurationMs: c.policy.maxDurationMs } : {}),
    ...pullStallOf(args.pool),
  });
  for (let tries = 0; ; tries++) {
    const now = d.now();
    const warm = args.reuseWarm
      ? placeOnWarmNodes(d, {
          runId,
          provider: c.provider,
          hostKey: key,
          host,
          shapes,
          maxPrice: args.pool.max_price,
          constraints: job.constraints.map(parseConstraint),
          desired,
          logicalId,
        })
      : { claimed: new Map<number, NodeRecord>(), notes: [] };
    const nodes = shapes.map(
      (_, i) =>
        warm.claimed.get(i) ??
        newNodeRecord({
          runId,
          logicalId: logicalId(i),
          groupId: 'nodes',
          role: 'worker',
          label: leaseLabel(install, runId, logicalId(i)),
          desired: desired(i),
          now,
        }),
    );
    try {
      d.ledger.createRun(
        {
          id: runId,
          jobId: runId,
          jobName: job.name,
          jobSpec: redactJob(job),
          source: args.source ?? null,
          provider: c.provider,
          count: shapes.length,
          pool: args.pool,
          keep: args.keep,
          outputsDir: join(homePaths(d.home).runs, runId),
          policy: c.policy,
          origin: args.origin ?? null,
          ...(c.cells ? { cells: c.cells } : {}),
        },
        nodes,
        now,
        { insideClaim: () => d.crashPoint('warm-claim') },
      );
    } catch (err) {
      if (err instanceof ClaimLostError && tries < 3) continue;
      throw err;
    }
    if (warm.claimed.size > 0) d.crashPoint('after-warm-claim');
    return { nodes, passedOver: warm.notes };
  }
}

/** The pool's `pull_stall` for the node record (checked when the pool was parsed). */
function pullStallOf(pool: PoolSpec): { pullStallMs?: number } {
  const ms = pool.pull_stall === undefined ? null : parseDuration(pool.pull_stall);
  return typeof ms === 'number' ? { pullStallMs: ms } : {};
}
