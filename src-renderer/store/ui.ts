import { EMPTY_IMAGE_LOGIN, type ImageLoginDraft } from '../views/composer/image-login';
import { create } from 'zustand';
import type { Offer, OfferFilterInput } from '../../src-main/contract';
import type { Marketplace } from '../lib/marketplaces';

/** What only the UI knows: where you are, what you picked, what you are composing. Server
 *  state (runs, nodes, leases, settings) lives in react-query, never here. */
export type View = 'ledger' | 'offers' | 'composer' | 'run' | 'settings';

export interface EnvRow {
  key: string;
  value: string;
  secret: boolean;
  /** A secret read from the environment Tender runs in (from a tender.toml's from_env). */
  fromEnv?: string;
}

/** A task parameter (TENDER_PARAM_<KEY> on the node). */
export interface ParamRow {
  key: string;
  value: string;
}

/** A run's lease limits as typed (durations like "6h", "1h30m", "none"); empty: Settings. */
export interface DraftLimits {
  budgetUsd: string;
  maxDuration: string;
  idleTimeout: string;
  unreachableGrace: string;
  /** `[policy] gpu_idle`: the action ('' or absent: no rule), the percent and the window
   *  as typed (empty: 10 and 30m). */
  gpuIdleThen?: '' | 'notify' | 'stop' | 'teardown';
  gpuIdleBelow?: string;
  gpuIdleFor?: string;
}

/** A Slurm pool as typed: a cluster from clusters.toml, and over its defaults the partition,
 *  account and QOS (empty: the cluster's), and GPUs per node (`gpu_count`; 0: none asked). */
export interface SlurmDraft {
  cluster: string;
  partition: string;
  account: string;
  qos: string;
  gpus: number;
}

export const EMPTY_SLURM: SlurmDraft = {
  cluster: '',
  partition: '',
  account: '',
  qos: '',
  gpus: 0,
};

/** Where a run's nodes come from: this machine, own hosts, one marketplace, several
 *  marketplaces tried in order (`chain`), the cheapest across marketplaces, or Slurm. */
export type DraftProvider = 'local' | 'ssh' | Marketplace | 'chain' | 'cheapest' | 'slurm';

export interface ComposerDraft {
  name: string;
  workdir: string;
  exclude: string[];
  setup: string;
  /** Workspace files setup depends on, one per line (setup_fingerprint); empty: the usual
   *  dependency files found in the workspace. */
  setupFingerprint: string;
  /** false: setup runs every run (setup_cache = false). */
  setupCache: boolean;
  /** Rebuild the persistent environment even when one is ready. */
  freshSetup: boolean;
  run: string;
  /** One output path per line, as typed. */
  outputs: string;
  env: EnvRow[];
  params: ParamRow[];
  /** The sweep's axes as typed, one a line (`LR = 1e-4, 3e-4`); empty: no sweep. */
  sweep: string;
  /** A loaded job file's explicit `[sweep] cells`, carried as they are (the field shows
   *  axes only). */
  sweepCells: Record<string, string>[];
  /** Memoization (`cache = true`): a cell that matches a completed one takes its outputs. */
  cache: boolean;
  /** A distributed run (`distributed = true`): one rank per node, `run` started on all of
   *  them together (docs/distributed.md). */
  distributed: boolean;
  /** A distributed run's stop rule: every rank, or when rank 0 ends. */
  stop: 'all' | 'rank0';
  /** Rank 0's port for the others (`master_port`), as typed; empty: 29500. */
  masterPort: string;
  /** Node ports reached from this machine while the job runs (`ports`), as typed:
   *  `6006, 8888:18888`. */
  ports: string;
  /** A loaded job file's `remote_ports`, carried as they are (no field edits them). */
  remotePorts: string[];
  provider: DraftProvider;
  /** The marketplaces a `chain` pool tries, first to last (`provider = "runpod,vastai"`). */
  chain: Marketplace[];
  count: number;
  hosts: string[];
  /** The Slurm pool (provider `slurm`): the cluster and what is asked of it. */
  slurm: SlurmDraft;
  /** Offers picked in the offer browser, one per node; all of one marketplace, the pool's. */
  offers: Offer[];
  /** The filter the offers were picked with: it becomes the pool's shape, so a taken offer
   *  falls back to a similar machine. */
  offerFilter: OfferFilterInput;
  verify: string[];
  /** Capability constraints, one per line (`gpu.vram >= 24GB`). */
  constraints: string;
  /** The container image for marketplace nodes; empty: the provider's default. */
  image: string;
  /** `pull_stall` as typed: a host whose image pull made no progress this long is given up;
   *  empty: the default (10m). */
  pullStall: string;
  /** The image's registry login (a private image); empty username: none. */
  imageLogin: ImageLoginDraft;
  /** Rent on the interruptible market (Vast.ai, RunPod: a bid; Lambda Cloud sells none). */
  interruptible: boolean;
  /** The bid in $/h for the machine, as typed; empty: the minimum bid plus a margin. */
  bid: string;
  keep: boolean;
  /** "Use a new node": rent even where a warm node of an earlier run would serve. */
  newNode: boolean;
  limits: DraftLimits;
  /** Where the draft came from (a tender.toml path), for display. */
  source: string | null;
}

export const EMPTY_DRAFT: ComposerDraft = {
  name: '',
  workdir: '',
  exclude: [],
  setup: '',
  setupFingerprint: '',
  setupCache: true,
  freshSetup: false,
  run: '',
  outputs: '',
  env: [],
  params: [],
  sweep: '',
  sweepCells: [],
  cache: false,
  distributed: false,
  stop: 'all',
  masterPort: '29500',
  ports: '',
  remotePorts: [],
  provider: 'local',
  chain: ['runpod', 'vastai'],
  count: 1,
  hosts: [],
  slurm: EMPTY_SLURM,
  offers: [],
  offerFilter: {},
  verify: [],
  constraints: '',
  image: '',
  pullStall: '',
  imageLogin: EMPTY_IMAGE_LOGIN,
  interruptible: false,
  bid: '',
  keep: false,
  newNode: false,
  limits: { budgetUsd: '', maxDuration: '', idleTimeout: '', unreachableGrace: '' },
  source: null,
};

interface UiState {
  view: View;
  setView(view: View): void;
  /** The run shown in the Run view. */
  runId: string | null;
  openRun(runId: string): void;
  draft: ComposerDraft;
  patchDraft(patch: Partial<ComposerDraft>): void;
  resetDraft(): void;
  /** Offers used as the pool: fills the composer's pool (on their marketplace) and opens it.
   *  The offers are of one provider (the offer browser refuses a mix). */
  useOffers(offers: Offer[], filter: OfferFilterInput): void;
}

export const useUi = create<UiState>()((set) => ({
  view: 'ledger',
  setView: (view) => set({ view }),
  runId: null,
  openRun: (runId) => set({ runId, view: 'run' }),
  draft: EMPTY_DRAFT,
  patchDraft: (patch) => set((s) => ({ draft: { ...s.draft, ...patch } })),
  resetDraft: () => set({ draft: EMPTY_DRAFT }),
  useOffers: (offers, filter) =>
    set((s) => ({
      draft: {
        ...s.draft,
        provider: (offers[0]?.provider as Marketplace | undefined) ?? 'vastai',
        offers,
        count: Math.max(1, offers.length),
        offerFilter: filter,
      },
      view: 'composer',
    })),
}));
