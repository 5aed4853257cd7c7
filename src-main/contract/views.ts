import { z } from 'zod';
import { SweepEstimate } from './sweep';
import { BootstrapStage, JobPhase, JobStatus, LeaseState, NodeStage } from './stages';
import { AfterJob, LeasePolicy } from './policy';

export const RunId = z.string().regex(/^r-[a-z0-9]{6,16}$/, 'a run id looks like r-k3x9a2mf');
export const NodeKey = z.string().min(1); // `${runId}/${logicalId}`

/** Why a live lease is not running, as its provider lists it. */
export const LeaseInterruption = z.enum(['outbid', 'stopped', 'exited']);
export type LeaseInterruption = z.infer<typeof LeaseInterruption>;

export const LeaseView = z.object({
  label: z.string(),
  leaseId: z.string().nullable(),
  provider: z.string(),
  runId: z.string().nullable(),
  nodeId: z.string().nullable(),
  state: LeaseState,
  /** $/h at creation. */
  pricePerHour: z.number().nullable(),
  /** Changes of its rate since (billing.ts): a raised bid; storage only while stopped. */
  rates: z.array(z.object({ from: z.number(), perHour: z.number() })).optional(),
  createdAt: z.number().nullable(),
  destroyedAt: z.number().nullable(),
  lastError: z.string().nullable(),
  reason: z.string().nullable(),
  /** Dollars billed so far: each rate × its time, from creation to the confirmed destroy
   *  (or now). */
  accruedUsd: z.number(),
  /** The node's dead-man switch as last renewed (null: not armed). */
  deadMan: z
    .object({
      renewedAt: z.number(),
      graceMs: z.number(),
      /** When the node destroys itself unless renewed or told otherwise. */
      firesAt: z.number(),
    })
    .nullable(),
  /** The runs this lease has served, oldest first (a warm node serves several); empty or
   *  absent: only the run that rented it. */
  servedRuns: z.array(z.string()).optional(),
  /** Kept after its job and free for the next run with the same host key. */
  warm: z
    .object({
      hostKey: z.string(),
      /** When its idle timeout tears it down (null: no idle timeout). */
      idleEndsAt: z.number().nullable(),
    })
    .nullable()
    .optional(),
  /** What the provider last listed the lease doing when it is not running: `outbid` (an
   *  interruptible lease whose bid lost; stopped, disk kept), `stopped`, `exited`. Null or
   *  absent: running, or not known to be otherwise. */
  interruption: LeaseInterruption.nullable().optional(),
  /** An interruptible lease's bid, $/h for the machine without storage (null: on-demand). */
  bid: z.number().nullable().optional(),
  /** The lowest bid that would run it now, as last listed (interruptible leases). */
  minBid: z.number().nullable().optional(),
});
export type LeaseView = z.infer<typeof LeaseView>;

/** A node's GPUs as its agent last sampled them (every 5 s; docs/agent-protocol.md, "GPU
 *  samples"). Times are epoch ms on the node's clock. */
export const NodeGpu = z.object({
  /** When the latest sample was taken. */
  at: z.number(),
  /** Per GPU, in nvidia-smi's index order: utilisation (percent) and memory (MiB); null
   *  where nvidia-smi could not read it (a MIG-enabled GPU has no utilisation). */
  gpus: z.array(
    z.object({
      index: z.number().int(),
      util: z.number().nullable(),
      memUsedMiB: z.number().nullable(),
      memTotalMiB: z.number().nullable(),
    }),
  ),
  /** The sparkline: the GPUs' mean utilisation per sample, oldest first (the last 60). */
  history: z.array(z.object({ at: z.number(), util: z.number().nullable() })),
  /** The latest sample is minutes old (the link is down, or nobody streams the log). */
  stale: z.boolean(),
  /** "stalled?": the job runs, its log has had no line for a while (10 min) and every GPU
   *  sat below the idle threshold all that time. Shown, never acted on. */
  stalled: z.boolean(),
  /** The node's last log line that is not a sample; null: none seen by this process. */
  lastLineAt: z.number().nullable(),
});
export type NodeGpu = z.infer<typeof NodeGpu>;

export const NodeView = z.object({
  id: NodeKey,
  runId: z.string(),
  logicalId: z.string(),
  provider: z.string(),
  stage: NodeStage,
  ready: z.boolean(),
  bootstrapStage: BootstrapStage.nullable(),
  leaseId: z.string().nullable(),
  label: z.string().nullable(),
  agentId: z.string().nullable(),
  capabilities: z.record(z.string(), z.union([z.string(), z.number()])).nullable(),
  failedReason: z.string().nullable(),
  /** Why the node was destroyed (job ended, Tear down all, its own dead-man switch…). */
  destroyReason: z.string().nullable(),
  jobStatus: JobStatus.nullable(),
  jobPhase: JobPhase.nullable(),
  exitCode: z.number().nullable(),
  /** Bytes in the machine's TENDER_CACHE after its latest run (docs/host-setup.md); null or
   *  absent: not measured yet. */
  cacheBytes: z.number().nullable().optional(),
  linkState: z.enum(['none', 'connected', 'lost']),
  updatedAt: z.number(),
  stageSince: z.number(),
  /** Every stage the node went through and when it entered it, oldest first. */
  stages: z.array(z.object({ stage: NodeStage, at: z.number() })),
  /** When the current stage gives up (waiting for an endpoint, bootstrapping, confirming a
   *  destroy); null for stages without one. */
  deadlineAt: z.number().nullable(),
  /** This node took over a warm node of an earlier run (no create, no bootstrap). */
  claimedFrom: z.object({ runId: z.string(), nodeId: z.string() }).nullable().optional(),
  /** Stage `released`: the later run's node that holds this node's lease now. */
  releasedTo: z.string().nullable().optional(),
  /** Its GPUs' latest sample and sparkline, while its agent is up; null or absent: no
   *  sample (no GPU, not joined yet, gone, or not streamed to this process). */
  gpu: NodeGpu.nullable().optional(),
});
export type NodeView = z.infer<typeof NodeView>;

export const RunView = z.object({
  id: z.string(),
  jobName: z.string(),
  /** Where the job came from (a job file's path), when known. */
  source: z.string().nullable().optional(),
  provider: z.string(),
  count: z.number(),
  status: JobStatus,
  /** true while no live process drives the run (the user detached, or Tender crashed). */
  detached: z.boolean(),
  createdAt: z.number(),
  endedAt: z.number().nullable(),
  failedReason: z.string().nullable(),
  outputsDir: z.string(),
  nodes: z.array(NodeView),
  /** A distributed run (docs/distributed.md): node-N is rank N. */
  distributed: z.boolean().default(false),
  /** A sweep's cells by status (`run.cells` lists them); null for a run that is no sweep. */
  sweep: z
    .object({
      total: z.number(),
      queued: z.number(),
      running: z.number(),
      completed: z.number(),
      failed: z.number(),
      cancelled: z.number(),
    })
    .nullable()
    .default(null),
  /** null for runs made before policies existed. */
  policy: LeasePolicy.nullable(),
  cost: z.object({
    /** Every lease of the run, failed boot attempts included. */
    accruedUsd: z.number(),
    burnUsdPerHour: z.number(),
    budgetUsd: z.number().nullable(),
    /** accrued / budget (null without a budget). */
    budgetFraction: z.number().nullable(),
    /** 80% of the budget was reached. */
    budgetWarning: z.boolean(),
  }),
});
export type RunView = z.infer<typeof RunView>;

/** What `run.plan` says a run would do, node by node. */
export const RunPlan = z.object({
  hostKey: z.string(),
  nodes: z.array(
    z.object({
      logicalId: z.string(),
      /** The warm node it would claim; null: a new lease. */
      warm: z
        .object({
          leaseId: z.string(),
          fromRun: z.string(),
          pricePerHour: z.number().nullable(),
          idleEndsAt: z.number().nullable(),
          /** The run before had the same setup and setup_fingerprint and its setup
           *  succeeded: the environment is reused unless those files changed. */
          setupCached: z.boolean(),
        })
        .nullable(),
    }),
  ),
  /** Why warm nodes of this provider would not be taken. */
  passedOver: z.array(z.string()),
  /** A sweep: its cells over its nodes, and what it is expected to take. */
  sweep: SweepEstimate.nullable().default(null),
});
export type RunPlan = z.infer<typeof RunPlan>;

/** An instance carrying Tender's label prefix that the ledger does not know. */
export const OrphanView = z.object({
  provider: z.string(),
  leaseId: z.string(),
  label: z.string(),
});
export type OrphanView = z.infer<typeof OrphanView>;

export const StatusView = z.object({
  runs: z.array(RunView),
  leases: z.array(LeaseView),
  orphans: z.array(OrphanView),
  /** Providers that could not be asked for their labelled leases, with why. */
  unreachable: z.array(z.object({ provider: z.string(), error: z.string() })),
});
export type StatusView = z.infer<typeof StatusView>;

/** `host_setup`: the node's host-setup FIFO (docs/host-setup.md); `run_setup`: the job's
 *  run_setup, at the start of each run; `gpu`: a GPU sample of the node's agent (one JSON
 *  line, src-agent/wire/gpu-sample.ts); `metrics`: a line the job appended to
 *  `$TENDER_METRICS` (contract/metrics.ts). The last two are data, never printed as the
 *  job's output. */
export const LogSource = z.enum([
  'bootstrap',
  'setup',
  'run',
  'agent',
  'event',
  'host_setup',
  'run_setup',
  'gpu',
  'metrics',
]);
export type LogSource = z.infer<typeof LogSource>;
/** Whether a record is data riding the log (a GPU sample, a metrics line) rather than a
 *  line of it: every printer, tail and search of the log leaves these out. */
export function isDataSource(source: LogSource): boolean {
  return source === 'gpu' || source === 'metrics';
}
export const LogChannel = z.enum(['bootstrap', 'agent', 'events']);
export type LogChannel = z.infer<typeof LogChannel>;

/** One datastream record: log bodies live here and nowhere else. The `agent` channel's
 *  records are the agent's `AgentLogRecord`s (src-agent/wire/protocol.ts), same seq. */
export const LogRecord = z.object({
  run: z.string(),
  node: z.string(),
  channel: LogChannel,
  source: LogSource,
  stream: z.enum(['stdout', 'stderr', 'info']),
  seq: z.number().int().positive(),
  ts: z.number(),
  line: z.string(),
});
export type LogRecord = z.infer<typeof LogRecord>;

export const LogBatch = z.object({ records: z.array(LogRecord) });
export type LogBatch = z.infer<typeof LogBatch>;

export const DestroyOutcome = z.object({
  label: z.string(),
  leaseId: z.string().nullable(),
  provider: z.string(),
  confirmed: z.boolean(),
  error: z.string().nullable(),
});
export type DestroyOutcome = z.infer<typeof DestroyOutcome>;

export const DestroyAllReport = z.object({
  outcomes: z.array(DestroyOutcome),
  allConfirmed: z.boolean(),
});
export type DestroyAllReport = z.infer<typeof DestroyAllReport>;

/** A machine of the `ssh` provider (hosts.toml). */
export const HostView = z.object({
  name: z.string(),
  host: z.string(),
  port: z.number().int(),
  user: z.string(),
  identityFile: z.string().nullable(),
  /** The run that holds it now, if any: a host runs one lease at a time. */
  claimedBy: z.string().nullable(),
});
export type HostView = z.infer<typeof HostView>;

export const HostInput = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, 'letters, digits, . _ - only'),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(22),
    user: z.string().min(1),
    identityFile: z.string().min(1).optional(),
  })
  .strict();
export type HostInput = z.input<typeof HostInput>;

export const TerminalOutput = z.object({
  terminalId: z.string(),
  /** base64: terminal output is bytes, not always valid UTF-8 at chunk boundaries. */
  data: z.string(),
});
export const TerminalExit = z.object({ terminalId: z.string(), code: z.number().nullable() });

/** One port forward of this process (docs/forwards.md). `local`: this machine's
 *  127.0.0.1:localPort reaches the node's 127.0.0.1:remotePort (in web mode "this machine"
 *  is the one serving the UI). `remote`: the node's 127.0.0.1:remotePort reaches
 *  host:localPort from here. */
export const ForwardView = z.object({
  runId: z.string(),
  /** The node's key (`NodeView.id`). */
  nodeId: NodeKey,
  direction: z.enum(['local', 'remote']),
  remotePort: z.number().int(),
  localPort: z.number().int(),
  /** Where a remote forward connects from here (`localhost`); `127.0.0.1` for a local one. */
  host: z.string(),
  /** `http://127.0.0.1:16006` for a local forward; null for a remote one. */
  url: z.string().nullable(),
  /** `TensorBoard` (6006), `Jupyter` (8888), else `port N` (contract/forward.ts). */
  label: z.string(),
  /** The last `?token=<hex>` the node's job printed (Jupyter's); null for none. */
  token: z.string().nullable(),
});
export type ForwardView = z.infer<typeof ForwardView>;

/** A run's forwards in this process changed (opened, closed, a token seen): all of them. */
export const ForwardsChanged = z.object({ runId: z.string(), forwards: z.array(ForwardView) });
export type ForwardsChanged = z.infer<typeof ForwardsChanged>;

/** What a push of a workspace would send, what it leaves out and why, and likely secrets. */
export const WorkspacePreview = z.object({
  root: z.string(),
  files: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  excluded: z.array(
    z.object({
      path: z.string(),
      reason: z.enum(['git', 'gitignore', 'exclude', 'special']),
      rule: z.string().optional(),
      source: z.string().optional(),
    }),
  ),
  secrets: z.array(z.object({ path: z.string(), pattern: z.string() })),
  largest: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative() })).max(10),
});
export type WorkspacePreview = z.infer<typeof WorkspacePreview>;

/** What to search a marketplace for. Absent fields use the provider's safe defaults. */
export const OfferFilter = z
  .object({
    gpu: z.string().min(1).optional(),
    gpuCount: z.number().int().min(1).max(16).default(1),
    minVramGb: z.number().positive().optional(),
    maxPrice: z.number().positive().optional(),
    diskGb: z.number().int().min(1).max(8192).default(32),
    minReliability: z.number().min(0).max(1).optional(),
    minDownMbps: z.number().positive().optional(),
    minUpMbps: z.number().positive().optional(),
    verified: z.boolean().optional(),
    region: z.string().min(1).optional(),
    /** Also show hosts that failed to boot for this user before (hidden by default). */
    includeFailedHosts: z.boolean().default(false),
    /** The interruptible market: only offers that take a bid, cheapest minimum bid first,
     *  `maxPrice` capping that price. */
    interruptible: z.boolean().optional(),
    limit: z.number().int().min(1).max(500).default(64),
  })
  .strict();
export type OfferFilter = z.infer<typeof OfferFilter>;
export type OfferFilterInput = z.input<typeof OfferFilter>;

/** One rentable machine of a marketplace, priced all-in for the requested disk. */
export const Offer = z.object({
  provider: z.string(),
  offerId: z.string(),
  machineId: z.string(),
  gpuName: z.string(),
  gpuCount: z.number(),
  /** Per GPU, in GB. */
  vramGb: z.number(),
  /** GPU $/h (the machine's dph). */
  gpuPricePerHour: z.number(),
  /** Storage $/h for the requested disk. */
  storagePricePerHour: z.number(),
  /** What the lease will bill per hour: GPU plus storage. */
  pricePerHour: z.number(),
  /** Interruptible: the lowest bid the machine takes now plus storage, all-in like
   *  `pricePerHour` (absent: the offer takes no bid). */
  interruptiblePricePerHour: z.number().optional(),
  reliability: z.number(),
  verified: z.boolean(),
  downMbps: z.number(),
  upMbps: z.number(),
  location: z.string().nullable(),
  cudaMaxGood: z.number().nullable(),
  /** Dollars per hour per TFLOP-ish performance score, when the provider gives one. */
  dlperf: z.number().nullable(),
  directPorts: z.number(),
});
export type Offer = z.infer<typeof Offer>;

/** Whether a provider key is set, and where it comes from (never the key). */
const SecretState = z.object({
  isSet: z.boolean(),
  source: z.enum(['keychain', 'file', 'env']).nullable(),
});

export const SettingsView = z.object({
  dataFolder: z.string(),
  /** Where each provider key comes from; never the key itself. */
  secrets: z.object({
    vastaiApiKey: SecretState,
    runpodApiKey: SecretState,
    lambdaApiKey: SecretState,
  }),
  /** Tender's own SSH public key: what hosts of the ssh provider must authorize. */
  sshPublicKey: z.string(),
  defaults: z.object({
    connectDeadlineMin: z.number(),
    endpointDeadlineMin: z.number(),
    maxBootAttempts: z.number(),
    cancelGraceSec: z.number(),
    diskGb: z.number(),
    maxDurationH: z.number(),
    idleTimeoutMin: z.number(),
    unreachableGraceMin: z.number(),
    collectGraceMin: z.number(),
    afterJob: AfterJob,
  }),
  /** Which shell serves this UI: the desktop app (native pickers) or web mode. */
  shell: z.enum(['app', 'web']),
  /** Being told when a run ends while nobody is looking (docs/architecture.md, Notifications). */
  notify: z.object({
    /** A desktop notification (the app's; the browser's in web mode, once allowed). */
    notifyDesktop: z.boolean(),
    /** Where the ledger's writer POSTs a Slack-compatible JSON body; null: none. */
    webhookUrl: z.string().nullable(),
  }),
});
export type SettingsView = z.infer<typeof SettingsView>;

export const OutputFile = z.object({ nodeId: z.string(), path: z.string(), size: z.number() });
export type OutputFile = z.infer<typeof OutputFile>;

/** What was spent: `tender cost` and the UI's cost panel. Dollars are $/h × billed time. */
export const CostReport = z.object({
  since: z.number(),
  now: z.number(),
  totalUsd: z.number(),
  /** $/h of everything billing now. */
  burnUsdPerHour: z.number(),
  billing: z.number(),
  days: z.array(z.object({ day: z.string(), usd: z.number() })),
  runs: z.array(
    z.object({
      runId: z.string(),
      jobName: z.string(),
      usd: z.number(),
      budgetUsd: z.number().nullable(),
      leases: z.number(),
    }),
  ),
  leases: z.array(
    z.object({
      label: z.string(),
      leaseId: z.string().nullable(),
      provider: z.string(),
      runId: z.string().nullable(),
      state: LeaseState,
      pricePerHour: z.number().nullable(),
      from: z.number().nullable(),
      to: z.number().nullable(),
      usd: z.number(),
      reason: z.string().nullable(),
    }),
  ),
});
export type CostReport = z.infer<typeof CostReport>;

/** A run's accrued cost over time (its cost chart). */
export const CostSeries = z.object({
  runId: z.string(),
  budgetUsd: z.number().nullable(),
  points: z.array(z.object({ at: z.number(), usd: z.number() })),
});
export type CostSeries = z.infer<typeof CostSeries>;
