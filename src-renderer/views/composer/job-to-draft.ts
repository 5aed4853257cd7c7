import type { CommandOutput, OfferFilterInput, PoolSpec } from '../../../src-main/contract';
import { EMPTY_DRAFT, type ComposerDraft, type EnvRow } from '../../store/ui';
import { DEFAULT_MASTER_PORT } from './distributed-rules';
import { policyToLimits } from './draft-limits';
import { formatPortsField } from './job-ports';
import { draftProviderOf, hasInterruptible } from './market-pool';
import { slurmDraftOf } from './slurm-pool';
import { formatSweepAxes } from './sweep-axes';

export type LoadedJob = CommandOutput<'job.load'>;

/** `[pool]` fields of a marketplace: a Slurm pool sends none of them (the provider refuses
 *  them). */
const MARKET_ONLY = [
  'gpu',
  'min_vram_gb',
  'max_price',
  'image',
  'image_login',
  'disk_gb',
  'min_reliability',
  'min_down_mbps',
  'min_up_mbps',
  'verified',
  'interruptible',
  'bid',
  'pull_stall',
] as const;

const PROVIDERS: readonly ComposerDraft['provider'][] = [
  'local',
  'ssh',
  'vastai',
  'runpod',
  'lambda',
  'cheapest',
  'slurm',
];

/** A parsed tender.toml as a composer draft. Secrets read from the environment stay
 *  references (`fromEnv`, no value); `notes` says what the composer could not carry. */
export function loadedToDraft(loaded: LoadedJob): { draft: ComposerDraft; notes: string[] } {
  const { job, pool, policy, file } = loaded;
  const notes: string[] = [];
  const found = draftProviderOf(pool.provider, PROVIDERS);
  const provider = found?.provider;
  if (!found) notes.push(`provider "${pool.provider}" is not offered here; using local`);
  const isInterruptible = pool.interruptible === true && (!found || hasInterruptible(found));
  if (pool.interruptible === true && !isInterruptible)
    notes.push('the file asks for interruptible machines: Lambda Cloud sells none; left out');
  if (pool.offers.length > 0)
    notes.push(
      `the file picks offers ${pool.offers.join(', ')} by id: pick them again in Offers (or the pool's shape is used)`,
    );
  const market = MARKET_ONLY.filter((k) => pool[k] !== undefined);
  if (provider === 'slurm' && market.length > 0)
    notes.push(
      `the file sets ${market.join(', ')} for a Slurm pool: a cluster takes none of those (ask for GPUs with GPUs per node); left out`,
    );
  if (!job.distributed && (job.stop !== 'all' || job.master_port !== DEFAULT_MASTER_PORT))
    notes.push(
      'the file sets stop or master_port without distributed = true: they apply to distributed jobs only (tick Distributed to use them)',
    );
  const env: EnvRow[] = Object.entries(job.env).map(([key, v]) => {
    if (typeof v === 'string') return { key, value: v, secret: false };
    if ('fromEnv' in v) return { key, value: '', secret: true, fromEnv: v.fromEnv };
    return { key, value: v.value, secret: true };
  });
  return {
    draft: {
      name: job.name,
      workdir: job.workspace?.workdir ?? '',
      exclude: job.workspace?.exclude ?? [],
      setup: job.setup ?? '',
      setupFingerprint: job.setup_fingerprint.join('\n'),
      setupCache: job.setup_cache,
      freshSetup: false,
      run: job.run,
      outputs: job.outputs.join('\n'),
      env,
      params: Object.entries(job.params).map(([key, value]) => ({ key, value })),
      sweep: formatSweepAxes(job.sweep?.axes ?? {}),
      sweepCells: job.sweep?.cells ?? [],
      cache: job.cache,
      distributed: job.distributed,
      stop: job.stop,
      masterPort: String(job.master_port),
      ports: formatPortsField(job.ports),
      remotePorts: job.remote_ports,
      provider: provider ?? 'local',
      chain: found?.provider === 'chain' ? found.chain : EMPTY_DRAFT.chain,
      count: pool.count,
      hosts: pool.hosts,
      slurm: slurmDraftOf(pool),
      offers: [],
      offerFilter: filterOf(pool),
      verify: pool.verify,
      constraints: job.constraints.join('\n'),
      image: pool.image ?? '',
      pullStall: pool.pull_stall ?? '',
      imageLogin: pool.image_login
        ? {
            username: pool.image_login.username,
            passwordEnv: pool.image_login.password_env,
            password: '',
            server: pool.image_login.server ?? '',
          }
        : EMPTY_DRAFT.imageLogin,
      interruptible: isInterruptible,
      bid: pool.bid === undefined ? '' : String(pool.bid),
      keep: policy.afterJob === 'keep_warm',
      newNode: false,
      limits: policyToLimits(policy),
      source: file,
    },
    notes,
  };
}

function filterOf(pool: PoolSpec): OfferFilterInput {
  const f: OfferFilterInput = {};
  if (pool.gpu) f.gpu = pool.gpu;
  if (pool.gpu_count !== undefined) f.gpuCount = pool.gpu_count;
  if (pool.min_vram_gb !== undefined) f.minVramGb = pool.min_vram_gb;
  if (pool.max_price !== undefined) f.maxPrice = pool.max_price;
  if (pool.disk_gb !== undefined) f.diskGb = pool.disk_gb;
  if (pool.min_reliability !== undefined) f.minReliability = pool.min_reliability;
  if (pool.min_down_mbps !== undefined) f.minDownMbps = pool.min_down_mbps;
  if (pool.min_up_mbps !== undefined) f.minUpMbps = pool.min_up_mbps;
  if (pool.verified !== undefined) f.verified = pool.verified;
  return f;
}
