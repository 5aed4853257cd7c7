import type { PoolSpec } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { DEFAULT_PROVIDER, HOSTS_PROVIDER, KNOWN_PROVIDERS } from '../../providers/known';
import { providerNameProblem } from '../../providers/failover/chain';
import { positiveNumber } from './flags';

/** `tender run`'s flags that say what to run on. */
export interface PoolFlagValues {
  provider?: string;
  count?: string;
  hosts?: string;
  cluster?: string;
  gpu?: string;
  gpus?: string;
  'min-vram-gb'?: string;
  'max-price'?: string;
  image?: string;
  'disk-gb'?: string;
  interruptible?: boolean;
  bid?: string;
}

/**
 * The pool flags, checked now (bad input before anything is read), as a function that lays
 * them over a job file's `[pool]`: the loader checks the result, so `--hosts a,b` is a pool
 * of two for every check (`distributed = true` included).
 */
export function poolFlags(values: PoolFlagValues): (pool: PoolSpec) => PoolSpec {
  if (values.provider !== undefined) {
    const problem = providerNameProblem(values.provider, KNOWN_PROVIDERS);
    if (problem) throw new TenderError('bad_input', problem.text, problem.hint);
  }
  const over: Partial<PoolSpec> = {};
  // Marketplace flags override the [pool] table's keys of the same meaning.
  if (values.gpu !== undefined) over.gpu = values.gpu;
  if (values.gpus !== undefined) over.gpu_count = positiveNumber('--gpus', values.gpus, true);
  if (values['min-vram-gb'] !== undefined)
    over.min_vram_gb = positiveNumber('--min-vram-gb', values['min-vram-gb']);
  if (values['max-price'] !== undefined)
    over.max_price = positiveNumber('--max-price', values['max-price']);
  if (values.image !== undefined) over.image = values.image;
  if (values['disk-gb'] !== undefined)
    over.disk_gb = positiveNumber('--disk-gb', values['disk-gb'], true);
  if (values.interruptible !== undefined) over.interruptible = values.interruptible;
  if (values.bid !== undefined) over.bid = positiveNumber('--bid', values.bid.replace(/^\$/, ''));
  if (values.cluster !== undefined) over.cluster = values.cluster;
  if (values.hosts !== undefined)
    over.hosts = values.hosts
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
  if (values.count !== undefined) {
    const n = Number(values.count);
    if (!Number.isInteger(n) || n < 1 || n > 64)
      throw new TenderError(
        'bad_input',
        `--count must be a whole number from 1 to 64, not "${values.count}"`,
      );
    over.count = n;
  }
  return (filePool) => {
    const pool = { ...filePool, ...over };
    if (values.provider !== undefined) pool.provider = values.provider;
    // `--hosts` alone means the ssh provider, unless the file or a flag named another.
    else if (over.hosts !== undefined && pool.provider === DEFAULT_PROVIDER)
      pool.provider = HOSTS_PROVIDER;
    return pool;
  };
}
