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
  'image-login'?: string;
}

/** The variable `--image-login` reads the password from when the job file names none. */
export const IMAGE_PASSWORD_ENV = 'IMAGE_LOGIN_PASSWORD';

/** `--image-login USER@SERVER` (`lab-bot@ghcr.io`): the user and the registry; the password
 *  is never a flag's value. */
function imageLoginFlag(text: string): { username: string; server: string } {
  const at = text.lastIndexOf('@');
  const username = text.slice(0, at).trim();
  const server = text.slice(at + 1).trim();
  if (at < 0 || username === '' || server === '' || /[\s:]/.test(username))
    throw new TenderError(
      'bad_input',
      `--image-login takes USER@SERVER (e.g. lab-bot@ghcr.io), not "${text.includes(':') ? text.slice(0, text.indexOf(':')) + ':…' : text}"`,
      `the password is read from $${IMAGE_PASSWORD_ENV} (or the job file's image_login.password_env), or --secret ${IMAGE_PASSWORD_ENV}=@FILE; never from the command line`,
    );
  return { username, server };
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
  const login = values['image-login'] !== undefined ? imageLoginFlag(values['image-login']) : null;
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
    // The file's password variable stays; without one, IMAGE_LOGIN_PASSWORD.
    if (login)
      pool.image_login = {
        ...login,
        password_env: filePool.image_login?.password_env ?? IMAGE_PASSWORD_ENV,
      };
    if (values.provider !== undefined) pool.provider = values.provider;
    // `--hosts` alone means the ssh provider, unless the file or a flag named another.
    else if (over.hosts !== undefined && pool.provider === DEFAULT_PROVIDER)
      pool.provider = HOSTS_PROVIDER;
    return pool;
  };
}
