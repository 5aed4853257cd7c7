import type { PoolSpec } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { NodeShape } from '../pool-shapes';
import { findCluster } from './clusters-file';

/** The pool fields of a marketplace that mean nothing to a cluster. */
const NOT_FOR_SLURM = [
  'gpu',
  'min_vram_gb',
  'max_price',
  'image',
  'disk_gb',
  'min_reliability',
  'min_down_mbps',
  'min_up_mbps',
  'verified',
  'interruptible',
  'bid',
] as const;

/** One allocation per node (`count`), on the named cluster; marketplace fields, hosts,
 *  offers and a missing or unknown cluster are bad input, named. */
export function slurmShapes(home: string, pool: PoolSpec): NodeShape[] {
  const given = NOT_FOR_SLURM.filter((k) => pool[k] !== undefined);
  if (given.length > 0)
    throw new TenderError(
      'bad_input',
      `${given.join(', ')} ${given.length > 1 ? 'are' : 'is'} for a marketplace, not a Slurm cluster`,
      'on a cluster ask for GPUs with gpu_count (--gpus); leave the rest out',
    );
  if (pool.hosts.length > 0 || pool.offers.length > 0)
    throw new TenderError('bad_input', 'hosts and offers are not for a Slurm cluster');
  if (!pool.cluster)
    throw new TenderError(
      'bad_input',
      'the slurm provider needs a cluster',
      'pass --cluster <name> or set cluster in [pool]; `tender clusters add` registers one',
    );
  const c = findCluster(home, pool.cluster); // an unknown name is bad input, named
  const shape: NodeShape = {
    cluster: c.name,
    gpus: pool.gpu_count ?? 0,
    partition: pool.partition ?? c.partition,
    account: pool.account ?? c.account,
    qos: pool.qos ?? c.qos,
  };
  return Array.from({ length: pool.count }, () => ({ ...shape }));
}
