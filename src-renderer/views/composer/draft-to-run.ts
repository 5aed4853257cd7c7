import type {
  CommandInput,
  EnvValue,
  JobSpecInput,
  OfferFilterInput,
  PoolSpecInput,
} from '../../../src-main/contract';
import { APP_ORIGIN, isPullStall, parseConstraint } from '../../../src-main/contract';
import type { ComposerDraft } from '../../store/ui';
import { limitsToPolicy } from './draft-limits';
import { distributedProblem, masterPortValue } from './distributed-rules';
import { envNameProblem, paramVariable } from './env-rules';
import { parsePortsField } from './job-ports';
import { hasInterruptible, isMarketPool, marketProblem, poolProviderOf } from './market-pool';
import { slurmPoolOf, slurmProblem } from './slurm-pool';
import { imageLoginOf, imageLoginProblem } from './image-login';
import { parseSweepAxes, sweepHint } from './sweep-axes';

export type StartInput = CommandInput<'run.start'>;
export type PlanInput = CommandInput<'run.plan'>;

/** Non-empty, trimmed lines of a textarea (outputs, exclude patterns, verify commands). */
export function lines(text: string | readonly string[]): string[] {
  const all = typeof text === 'string' ? text.split('\n') : text;
  return all.map((l) => l.trim()).filter((l) => l.length > 0);
}

/** The setup's keys as a tender.toml would hold them: cached (the default) on the files
 *  listed, or on the usual dependency files when none are; or run every time. */
function setupOf(
  setup: string,
  draft: ComposerDraft,
): Pick<JobSpecInput, 'setup' | 'setup_fingerprint' | 'setup_cache'> {
  if (!draft.setupCache) return { setup, setup_cache: false };
  return { setup, setup_fingerprint: lines(draft.setupFingerprint) };
}

/** The composer's draft as `run.start` input: exactly the JobSpec and PoolSpec a tender.toml
 *  with the same content would give. Checks beyond `draftProblems` are the contract's. */
export function draftToStartInput(draft: ComposerDraft): StartInput {
  const setup = draft.setup.trim() ? draft.setup : undefined;
  const workdir = draft.workdir.trim();
  return {
    job: {
      name: draft.name.trim(),
      run: draft.run,
      ...(setup ? setupOf(setup, draft) : {}),
      ...(workdir ? { workspace: { workdir, exclude: lines(draft.exclude) } } : {}),
      outputs: lines(draft.outputs),
      env: envOf(draft),
      params: Object.fromEntries(
        draft.params.filter((p) => p.key.trim()).map((p) => [p.key.trim(), p.value]),
      ),
      ...(lines(draft.constraints).length > 0 ? { constraints: lines(draft.constraints) } : {}),
      ...sweepOf(draft),
      ...(draft.cache ? { cache: true } : {}),
      ...distributedOf(draft),
      ...forwardsOf(draft),
    },
    pool: poolOf(draft),
    keep: draft.keep,
    // The checkbox decides, whatever the Settings default: what you see is what runs.
    policy: {
      ...limitsToPolicy(draft.limits).policy,
      afterJob: draft.keep ? 'keep_warm' : 'destroy',
    },
    ...(draft.source ? { source: draft.source } : {}),
    origin: APP_ORIGIN,
    ...(draft.freshSetup && draft.setupCache ? { freshSetup: true } : {}),
    ...(draft.newNode ? { reuseWarm: false } : {}),
    ...(isMarketPool(draft.provider) ? loginSecrets(draft) : {}),
  };
}

/** A typed registry password, sent with the start only (never in the pool). */
function loginSecrets(draft: ComposerDraft): Pick<StartInput, 'secrets'> {
  const { secrets } = imageLoginOf(draft.image, draft.imageLogin);
  return Object.keys(secrets).length > 0 ? { secrets } : {};
}

/** The draft as `run.plan` input: where it would run with warm nodes allowed, so the
 *  composer can say what "Use a new node" would leave aside. */
export function draftToPlanInput(draft: ComposerDraft): PlanInput {
  const { job, pool } = draftToStartInput(draft);
  return { job, pool, reuseWarm: true };
}

/** The Sweep field's axes and a loaded file's explicit cells as `job.sweep`; nothing when
 *  both are empty. */
function sweepOf(draft: ComposerDraft): Pick<StartInput['job'], 'sweep'> {
  const { axes } = parseSweepAxes(draft.sweep);
  if (Object.keys(axes).length === 0 && draft.sweepCells.length === 0) return {};
  return { sweep: { axes, cells: draft.sweepCells } };
}

/** A distributed draft's `distributed`, `stop` and `master_port`; nothing for one that is
 *  not (those two mean nothing without it). */
function distributedOf(
  draft: ComposerDraft,
): Pick<StartInput['job'], 'distributed' | 'stop' | 'master_port'> {
  if (!draft.distributed) return {};
  return { distributed: true, stop: draft.stop, master_port: masterPortValue(draft.masterPort) };
}

/** The Ports field as `ports`, and a loaded file's `remote_ports` as they came; nothing for
 *  either when empty. */
function forwardsOf(draft: ComposerDraft): Pick<StartInput['job'], 'ports' | 'remote_ports'> {
  const { ports } = parsePortsField(draft.ports);
  return {
    ...(ports.length > 0 ? { ports } : {}),
    ...(draft.remotePorts.length > 0 ? { remote_ports: draft.remotePorts } : {}),
  };
}

/** How many nodes the pool asks for: the count (local, slurm: one allocation each), the
 *  hosts picked (ssh), at least the offers picked (a marketplace). */
export function nodeCount(
  draft: Pick<ComposerDraft, 'provider' | 'count' | 'hosts' | 'offers'>,
): number {
  if (draft.provider === 'ssh') return draft.hosts.length;
  return Math.max(draft.count, isMarketPool(draft.provider) ? draft.offers.length : 0);
}

function envOf(draft: ComposerDraft): Record<string, EnvValue> {
  const env: Record<string, EnvValue> = {};
  for (const row of draft.env) {
    const key = row.key.trim();
    if (!key) continue;
    if (row.fromEnv) env[key] = { secret: true, fromEnv: row.fromEnv };
    else if (row.secret) env[key] = { secret: true, value: row.value };
    else env[key] = row.value;
  }
  return env;
}

function poolOf(draft: ComposerDraft): PoolSpecInput {
  const verify = lines(draft.verify);
  switch (draft.provider) {
    case 'local':
      return { provider: 'local', count: draft.count, verify };
    case 'ssh':
      // Each host is one node: the count is the number of hosts picked.
      return {
        provider: 'ssh',
        count: Math.max(1, draft.hosts.length),
        verify,
        hosts: draft.hosts,
      };
    case 'vastai':
    case 'runpod':
    case 'lambda':
    case 'chain':
    case 'cheapest':
      // Picked offers go with the one marketplace they belong to (draftProblems names a
      // mismatch); a pool of several marketplaces rents by shape alone.
      return {
        provider: poolProviderOf(draft),
        count: Math.max(draft.count, draft.offers.length),
        verify,
        offers: draft.offers.map((o) => o.offerId),
        ...marketShape(draft.offerFilter),
        ...(draft.image.trim() ? { image: draft.image.trim() } : {}),
        ...(draft.pullStall.trim() ? { pull_stall: draft.pullStall.trim() } : {}),
        ...imageLoginOf(draft.image, draft.imageLogin).pool,
        ...(draft.interruptible && hasInterruptible(draft) ? bidOf(draft.bid) : {}),
      };
    case 'slurm':
      // One allocation per node, on the cluster picked; no marketplace shape.
      return slurmPoolOf(draft.slurm, draft.count, verify);
  }
}

/** An interruptible pool, with the bid typed (draftProblems names one that is not a
 *  price). */
function bidOf(typed: string): PoolSpecInput {
  const bid = bidValue(typed);
  return bid === undefined ? { interruptible: true } : { interruptible: true, bid };
}

/** The typed bid as $/h; undefined when none is typed; NaN when it is not a price. */
function bidValue(typed: string): number | undefined {
  const t = typed.trim();
  if (t === '') return undefined;
  const n = Number(t);
  return Number.isFinite(n) && n > 0 ? n : NaN;
}

/** The offer filter as the pool's node shape, so a taken offer falls back to a similar
 *  machine and extra nodes match what was picked. */
export function marketShape(f: OfferFilterInput): PoolSpecInput {
  const shape: PoolSpecInput = {};
  if (f.gpu) shape.gpu = f.gpu;
  if (f.gpuCount !== undefined) shape.gpu_count = f.gpuCount;
  if (f.minVramGb !== undefined) shape.min_vram_gb = f.minVramGb;
  if (f.maxPrice !== undefined) shape.max_price = f.maxPrice;
  if (f.diskGb !== undefined) shape.disk_gb = f.diskGb;
  if (f.minReliability !== undefined) shape.min_reliability = f.minReliability;
  if (f.minDownMbps !== undefined) shape.min_down_mbps = f.minDownMbps;
  if (f.minUpMbps !== undefined) shape.min_up_mbps = f.minUpMbps;
  if (f.verified !== undefined) shape.verified = f.verified;
  return shape;
}

export type DraftField =
  | 'name'
  | 'run'
  | 'workdir'
  | 'env'
  | 'params'
  | 'sweep'
  | 'pool'
  | 'limits'
  | 'distributed'
  | 'ports';

/** What must be fixed before the draft is worth sending, by field. The contract checks the
 *  rest (paths, env names, provider rules) and its message is shown as it comes. */
export function draftProblems(draft: ComposerDraft): Partial<Record<DraftField, string>> {
  const p: Partial<Record<DraftField, string>> = {};
  if (!draft.name.trim()) p.name = 'Give the job a name';
  if (!draft.run.trim()) p.run = 'Say what to run';
  const envKeys = draft.env.map((r) => r.key.trim());
  const named = envKeys.filter(Boolean);
  const badName = named.map(envNameProblem).find((x) => x !== null);
  if (draft.env.some((r, i) => !envKeys[i] && (r.value || r.fromEnv)))
    p.env = 'A variable has a value but no name';
  else if (badName) p.env = badName;
  else if (new Set(named).size !== named.length) p.env = 'A variable is named twice';
  const paramKeys = draft.params.map((r) => r.key.trim()).filter(Boolean);
  if (draft.params.some((r) => !r.key.trim() && r.value)) p.params = 'A parameter has no name';
  else if (new Set(paramKeys.map(paramVariable)).size !== paramKeys.length)
    p.params = 'Two parameters become the same TENDER_PARAM_ variable';
  const sweep = parseSweepAxes(draft.sweep);
  const size = sweepHint(sweep.axes, draft.sweepCells.length, Math.max(1, nodeCount(draft)));
  if (sweep.problems[0]) p.sweep = `Line ${sweep.problems[0].line}: ${sweep.problems[0].message}`;
  else if (size?.problem) p.sweep = size.text;
  if (draft.provider === 'ssh' && draft.hosts.length === 0)
    p.pool = 'Pick at least one host (add hosts in Settings)';
  const slurm = draft.provider === 'slurm' ? slurmProblem(draft.slurm) : null;
  if (slurm) p.pool = slurm;
  const badConstraint = lines(draft.constraints)
    .map((c) => {
      try {
        parseConstraint(c);
        return null;
      } catch (err) {
        return (err as Error).message;
      }
    })
    .find((m) => m !== null);
  if (badConstraint) p.pool = badConstraint;
  const market = isMarketPool(draft.provider) ? marketProblem(draft) : null;
  if (market) p.pool = market;
  if (isMarketPool(draft.provider) && draft.interruptible && Number.isNaN(bidValue(draft.bid)))
    p.pool = 'The bid is a price in $/h for the machine, e.g. 0.25 (empty: the minimum + 10%)';
  if (isMarketPool(draft.provider) && draft.pullStall.trim() && !isPullStall(draft.pullStall))
    p.pool = 'Give up a pull after: a duration from 1m to 24h without progress, e.g. 15m';
  const login = isMarketPool(draft.provider)
    ? imageLoginProblem(draft.image, draft.imageLogin)
    : null;
  if (login) p.pool = login;
  if (Object.keys(limitsToPolicy(draft.limits).problems).length > 0)
    p.limits = 'A limit is not understood';
  const distributed = distributedProblem(draft, nodeCount(draft));
  if (distributed) p.distributed = distributed;
  const ports = parsePortsField(draft.ports).problem;
  if (ports) p.ports = ports;
  return p;
}

/** What the pool is expected to bill per hour: the picked offers, plus the cheapest known
 *  match (or the price cap) for each node beyond them. Null when nothing is known. */
export function estimatedHourly(
  draft: Pick<ComposerDraft, 'provider' | 'count' | 'offers' | 'offerFilter'> &
    Partial<Pick<ComposerDraft, 'interruptible' | 'bid' | 'chain'>>,
  cheapestMatch: number | null,
): { perHour: number; isUpperBound: boolean; isBid?: boolean } | null {
  if (!isMarketPool(draft.provider)) return null;
  if (
    draft.interruptible &&
    hasInterruptible({ provider: draft.provider, chain: draft.chain ?? [] })
  ) {
    // A bid typed bills that bid per machine (plus its disk); none typed bills at most the
    // on-demand price (a bid is never above it).
    const bid = bidValue(draft.bid ?? '');
    const nodes = Math.max(draft.count, draft.offers.length);
    if (bid !== undefined && !Number.isNaN(bid))
      return { perHour: bid * nodes, isUpperBound: false, isBid: true };
    const onDemand = estimatedHourly({ ...draft, interruptible: false }, cheapestMatch);
    return onDemand && { ...onDemand, isUpperBound: true };
  }
  const picked = draft.offers.reduce((sum, o) => sum + o.pricePerHour, 0);
  const extra = Math.max(0, draft.count - draft.offers.length);
  if (extra === 0) return draft.offers.length ? { perHour: picked, isUpperBound: false } : null;
  const each = cheapestMatch ?? draft.offerFilter.maxPrice ?? null;
  if (each === null) return null;
  return { perHour: picked + extra * each, isUpperBound: cheapestMatch === null };
}
