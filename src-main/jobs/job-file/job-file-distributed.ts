// A distributed job's checks, shared by the job file loader and runs started through the
// contract: it needs two nodes or more, and it is one gang — not a sweep, not memoized.
import type { PoolSpec } from '../../contract/job';
import type { Problem } from './job-file-problem';

/** How many nodes a pool asks for: one per host where hosts are named (`--hosts a,b` is a
 *  pool of two), else its count, or more where more offers were picked by hand. */
export function poolSize(pool: Pick<PoolSpec, 'count' | 'hosts' | 'offers'>): number {
  if (pool.hosts.length > 0) return pool.hosts.length;
  return Math.max(pool.count, pool.offers.length);
}

export function checkDistributed(
  job: { distributed: boolean; sweep?: unknown; cache: boolean },
  count: number,
): Problem[] {
  if (!job.distributed) return [];
  const path = ['job', 'distributed'];
  if (count < 2)
    return [
      {
        path,
        text: `distributed = true needs count ≥ 2 (the pool has ${count} node${count === 1 ? '' : 's'})`,
        hint: 'set count = 2 or more in [pool] (or --count 2, or --hosts a,b), or leave distributed out',
      },
    ];
  if (job.sweep !== undefined)
    return [
      {
        path,
        text: 'a distributed job cannot also be a sweep: its nodes are one gang',
        hint: 'leave [sweep] out, or run the sweep without distributed',
      },
    ];
  if (job.cache)
    return [
      {
        path,
        text: 'a distributed job cannot be memoized (cache = true)',
        hint: 'leave cache out',
      },
    ];
  return [];
}
