import { z } from 'zod';
import { Receipt } from './receipt';
import { CellView } from './sweep';
import { ClusterInput, ClusterView } from './cluster';
import { JobSpec, PoolSpec } from './job';
import { LogBackfill } from './log-backfill';
import { MetricSeries } from './metrics';
import { webhookUrlProblem } from './notice';
import { AfterJob, PolicyInput } from './policy';
import {
  CostReport,
  CostSeries,
  DestroyAllReport,
  ForwardsChanged,
  ForwardView,
  HostInput,
  HostView,
  TerminalExit,
  TerminalOutput,
  WorkspacePreview,
  OutputFile,
  SettingsView,
  Offer,
  OfferFilter,
  LeaseView,
  LogBatch,
  LogChannel,
  LogRecord,
  NodeView,
  RunPlan,
  RunView,
  StatusView,
} from './views';

/** Every command: name → input schema, output schema. The handler table is typed from this,
 *  so a missing handler is a compile error; every transport parses input at the boundary. */
export const commands = {
  'run.start': {
    input: z.object({
      job: JobSpec,
      pool: PoolSpec,
      /** Keep nodes after the job ends (for debugging); they stay billed and listed. Same as
       *  policy.afterJob "keep_warm". */
      keep: z.boolean().default(false),
      /** The lease policy; what is left out comes from the defaults in Settings. */
      policy: PolicyInput.default({}),
      /** Where the job came from, for display only. */
      source: z.string().optional(),
      /** Rebuild the job's persistent environment even when one is ready. */
      freshSetup: z.boolean().default(false),
      /** Claim a warm node (kept after an earlier job, same host key and pool) instead of
       *  renting; false: always rent anew. */
      reuseWarm: z.boolean().default(true),
    }),
    output: RunView,
  },
  /** The same job and pool as an earlier run, warm nodes first. Secrets are not kept in the
   *  ledger: give each by name in `secrets` (the CLI reads them from the job file). */
  'run.rerun': {
    input: z.object({
      runId: z.string(),
      freshSetup: z.boolean().default(false),
      reuseWarm: z.boolean().default(true),
      secrets: z.record(z.string(), z.string()).default({}),
      /** A sweep: only its cells that failed or were cancelled (same ids and values). */
      failed: z.boolean().default(false),
    }),
    output: RunView,
  },
  /** Runs a receipt's job again (contract/receipt.ts): the job of its run as the ledger
   *  keeps it, with the receipt's params, as one job. The workspace is diffed file by file
   *  against what the receipt's job was given (a warning, not a refusal). A receipt from
   *  another install (its run is not in this ledger) is refused. */
  'run.fromReceipt': {
    input: z.object({
      receipt: Receipt,
      secrets: z.record(z.string(), z.string()).default({}),
      freshSetup: z.boolean().default(false),
      reuseWarm: z.boolean().default(true),
    }),
    output: z.object({
      run: RunView,
      workspace: z.object({
        /** false: the folder differs from what the receipt's job was given. */
        same: z.boolean(),
        /** null: the receipt's file list is not on this machine (only its digest). */
        added: z.array(z.string()).nullable(),
        removed: z.array(z.string()).nullable(),
        changed: z.array(z.string()).nullable(),
      }),
    }),
  },
  /** A sweep's cells, in order (empty for a run that is no sweep). */
  'run.cells': { input: z.object({ runId: z.string() }), output: z.array(CellView) },
  /** Cancels one cell of a sweep: a queued one is never started; a running one is stopped
   *  (SIGTERM, grace, SIGKILL) and its node takes the next cell. */
  'run.cancelCell': {
    input: z.object({ runId: z.string(), jobId: z.string() }),
    output: CellView,
  },
  /** Where a run would go, without starting it: each node a warm node it would claim (and
   *  whether its setup looks cached) or a new lease, with why warm nodes were passed over. */
  'run.plan': {
    input: z.object({ job: JobSpec, pool: PoolSpec, reuseWarm: z.boolean().default(true) }),
    output: RunPlan,
  },
  /** The receipts of a run's finished jobs (contract/receipt.ts), one per node that has
   *  one (a sweep: one per cell); `nodeId` (`node-0`) for one node, `jobId` (`j03`) for
   *  one cell. */
  'run.receipts': {
    input: z.object({
      runId: z.string(),
      nodeId: z.string().optional(),
      jobId: z.string().optional(),
    }),
    output: z.array(Receipt),
  },
  /** Picks up runs nobody drives: every one (`all`), or those whose job has ended on every
   *  node, so their outputs are collected and their nodes torn down. The runs attached. */
  'run.collectDue': {
    input: z.object({ all: z.boolean().default(false) }).prefault({}),
    output: z.object({
      attached: z.array(z.string()),
      /** Nodes stopped with uncollected outputs that could not be started again. */
      stopped: z.array(z.object({ runId: z.string(), leaseId: z.string(), reason: z.string() })),
    }),
  },
  'run.get': { input: z.object({ runId: z.string() }), output: RunView },
  'run.list': { input: z.object({}).default({}), output: z.array(RunView) },
  /** OperatorStop: cancels the job (SIGTERM, grace, SIGKILL), collects outputs best effort,
   *  tears the nodes down. The run ends `cancelled` (not failed), reason "cancelled". */
  'run.cancel': { input: z.object({ runId: z.string() }), output: RunView },
  /** Stops driving the run from this process; the agents keep running the job. */
  'run.detach': { input: z.object({ runId: z.string() }), output: RunView },
  /** Drives a detached run again: reattaches the logs and finishes its lifecycle. */
  'run.attach': { input: z.object({ runId: z.string() }), output: RunView },
  'status.get': { input: z.object({}).default({}), output: StatusView },
  'logs.read': {
    input: z.object({
      runId: z.string(),
      nodeId: z.string().optional(),
      channel: LogChannel.optional(),
      fromSeq: z.number().int().min(1).default(1),
      limit: z.number().int().min(1).max(100_000).default(10_000),
      /** Instead of from `fromSeq`: from the `tail`-th last record of each channel read (a
       *  pane opening a long log wants its end, not a million lines). */
      tail: z.number().int().min(1).max(1_000_000).optional(),
      /** A sweep's cell (`j03`): its node's agent records between the cell's seqs. */
      jobId: z.string().optional(),
    }),
    output: z.object({ records: z.array(LogRecord) }),
  },
  /** Fetches from each reachable node's agent the log records the datastream lacks (a
   *  detached or unattended run), same seqs: no gap, no duplicate. The writer stores them
   *  (and they go out as `log.lines`, as stored records do); a read-only process only sends
   *  them as `log.lines`. `tail`: a read-only process fetches at most the last `tail`. */
  'logs.backfill': {
    input: z.object({
      runId: z.string(),
      nodeId: z.string().optional(),
      tail: z.number().int().min(1).max(1_000_000).optional(),
    }),
    output: z.object({ nodes: z.array(LogBackfill) }),
  },
  'node.destroy': { input: z.object({ nodeId: z.string() }), output: NodeView },
  /** Appends a command to a live node's host-setup FIFO (docs/host-setup.md); `target` is
   *  a lease id, a lease label or a node id. With `wait`, answers once the entry has run,
   *  with its exit and its log section. */
  'node.setup': {
    input: z.object({
      target: z.string().min(1),
      script: z.string().min(1),
      name: z.string().min(1).optional(),
      /** Re-probe the node's capabilities (GPUs) after it: a driver install. */
      refreshCapabilities: z.boolean().default(false),
      wait: z.boolean().default(false),
    }),
    output: z.object({
      nodeId: z.string(),
      leaseId: z.string().nullable(),
      /** The entry's place in the FIFO (`host_setup[id]`). */
      id: z.number().int(),
      /** Unfinished entries ahead of it when it was appended. */
      position: z.number().int(),
      state: z.enum(['pending', 'running', 'exited']),
      code: z.number().nullable(),
      signal: z.string().nullable(),
      /** Its log section (waited for only; empty otherwise). */
      lines: z.array(z.object({ stream: z.enum(['stdout', 'stderr', 'info']), line: z.string() })),
    }),
  },
  /** Destroys every live lease (and, with `orphans`, every orphan) in parallel and waits for
   *  the provider to confirm each is gone. */
  'lease.destroyAll': {
    input: z
      .object({
        /** Every live lease in the ledger. */
        leases: z.boolean().default(true),
        /** Every lease carrying Tender's label that the ledger does not hold. */
        orphans: z.boolean().default(true),
      })
      .prefault({}),
    output: DestroyAllReport,
  },
  /** Destroys the live leases of one run (a run id) or one lease (its id or label), and
   *  waits for the provider to confirm each is gone; jobs driven here stop for good, and a
   *  run left with no live node and no driver is closed. */
  'lease.destroy': { input: z.object({ target: z.string().min(1) }), output: DestroyAllReport },
  'lease.list': { input: z.object({}).default({}), output: z.array(LeaseView) },
  /** Raises (or lowers) the bid of an interruptible lease (`leaseId`: its id or label), in $/h
   *  for the machine without storage. Refused above the on-demand price and below the bid
   *  that would run it now; an outbid lease runs again once the provider lists it running. */
  'lease.bid': {
    input: z.object({ leaseId: z.string().min(1), bid: z.number().positive() }),
    output: LeaseView,
  },
  /** A marketplace's offers, cheapest all-in price first (hosts that failed to boot for
   *  this user are left out unless asked for). */
  'offers.search': {
    input: z.object({ provider: z.string().default('vastai'), filter: OfferFilter.prefault({}) }),
    output: z.array(Offer),
  },
  /** One table across marketplaces: the ones named, or every configured one; merged
   *  cheapest first, with what each provider answered (an error never hides the others). */
  'offers.searchAll': {
    input: z.object({
      providers: z.array(z.string().min(1)).optional(),
      filter: OfferFilter.prefault({}),
    }),
    output: z.object({
      offers: z.array(Offer),
      sources: z.array(
        z.object({
          provider: z.string(),
          count: z.number().int().nonnegative(),
          error: z.object({ message: z.string(), hint: z.string().nullable() }).nullable(),
        }),
      ),
    }),
  },
  'workspace.preview': {
    input: z
      .object({ workdir: z.string().min(1), exclude: z.array(z.string()).default([]) })
      .strict(),
    output: WorkspacePreview,
  },
  /** Pushes what changed in a run's workspace into each node running its job, in place:
   *  the job keeps its cwd and the files it made. Writes nothing to the ledger. */
  'workspace.sync': {
    input: z.object({ runId: z.string() }),
    output: z.object({
      nodes: z.array(
        z.object({
          nodeId: z.string(),
          mode: z.enum(['full', 'delta']),
          filesSent: z.number(),
          bytesSent: z.number(),
          deleted: z.number(),
          unchanged: z.number(),
          elapsedMs: z.number(),
        }),
      ),
    }),
  },
  /** Reads a tender.toml (its text; paths relative to `baseDir`) into a job and a pool, with
   *  the same checks and messages as the CLI. Secrets read from the environment stay
   *  references (`fromEnv`): their values never reach a UI. */
  'job.parse': {
    input: z.object({
      text: z.string().max(1_000_000),
      baseDir: z.string().min(1),
      file: z.string().optional(),
    }),
    output: z.object({ job: JobSpec, pool: PoolSpec, policy: PolicyInput }),
  },
  /** Reads a tender.toml on the machine running Tender (the file, or a folder holding one)
   *  like `job.parse`: what a dropped or typed path fills the composer with (a browser cannot
   *  read a dropped folder). A missing file is `not_found`; a bad one `bad_input` with its
   *  line. */
  'job.load': {
    input: z.object({ path: z.string().min(1).max(4_096) }),
    output: z.object({ job: JobSpec, pool: PoolSpec, policy: PolicyInput, file: z.string() }),
  },
  /** Lines of a run's stored log matching `query` (case-insensitive substring): the whole
   *  log on disk, not just what a terminal keeps in its scrollback. */
  'logs.search': {
    input: z.object({
      runId: z.string(),
      nodeId: z.string().optional(),
      query: z.string().min(1).max(1_000),
      limit: z.number().int().min(1).max(10_000).default(500),
    }),
    output: z.object({ records: z.array(LogRecord), truncated: z.boolean() }),
  },
  /** A run's metrics as series (contract/metrics.ts): the lines its jobs appended to
   *  `$TENDER_METRICS`, as the datastream holds them. `nodeId` (`node-0`) and `jobId` (a
   *  sweep cell) narrow it; `fromSeq` reads each node's agent records from that seq on, and
   *  `lastSeq` is the highest seq read (of one node: poll it with `fromSeq: lastSeq + 1`). */
  'run.metrics': {
    input: z.object({
      runId: z.string(),
      nodeId: z.string().optional(),
      jobId: z.string().optional(),
      fromSeq: z.number().int().min(1).default(1),
    }),
    output: z.object({
      series: z.array(MetricSeries),
      /** Lines that were no JSON object. */
      skipped: z.number().int(),
      lastSeq: z.number().int(),
    }),
  },
  'outputs.list': { input: z.object({ runId: z.string() }), output: z.array(OutputFile) },
  /** Opens a node's outputs folder in the file manager of the machine running Tender. */
  'outputs.open': {
    input: z.object({ runId: z.string(), nodeId: z.string() }),
    output: z.object({ path: z.string() }),
  },
  /** The native folder picker (desktop app only; web mode types the path instead). */
  'app.pickFolder': {
    input: z.object({}).default({}),
    output: z.object({ path: z.string().nullable() }),
  },
  'settings.get': { input: z.object({}).default({}), output: SettingsView },
  /** Stores (or, with null, forgets) a provider key: in the OS keychain in the app, a 0600
   *  file otherwise. The value is write-only: settings.get says only whether it is set. */
  'settings.setSecret': {
    input: z.object({
      name: z.enum(['vastaiApiKey', 'runpodApiKey', 'lambdaApiKey']),
      value: z.string().min(1).max(4_096).nullable(),
    }),
    output: SettingsView,
  },
  'settings.setDefaults': {
    input: z
      .object({
        connectDeadlineMin: z.number().min(1).max(60),
        endpointDeadlineMin: z.number().min(1).max(120),
        maxBootAttempts: z.number().int().min(1).max(10),
        cancelGraceSec: z.number().int().min(0).max(600),
        diskGb: z.number().int().min(8).max(8192),
        maxDurationH: z.number().min(0).max(720),
        idleTimeoutMin: z.number().min(0).max(10_080),
        unreachableGraceMin: z.number().min(1).max(10_080),
        collectGraceMin: z.number().min(1).max(10_080),
        afterJob: AfterJob,
      })
      .partial(),
    output: SettingsView,
  },
  /** Desktop notifications on or off, and the webhook URL (null forgets it). Absent fields
   *  keep their value. */
  'settings.setNotify': {
    input: z
      .object({
        notifyDesktop: z.boolean(),
        webhookUrl: z
          .string()
          .trim()
          .max(2_048)
          .superRefine((u, ctx) => {
            const problem = webhookUrlProblem(u);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          })
          .nullable(),
      })
      .partial()
      .strict(),
    output: SettingsView,
  },
  /** Everything billed since `sinceMs` ago (default 7 days): per lease, per run, per day. */
  'cost.report': {
    input: z
      .object({
        sinceMs: z
          .number()
          .int()
          .positive()
          .default(7 * 86_400_000),
      })
      .prefault({}),
    output: CostReport,
  },
  /** A run's accrued cost at `points` moments from its start to now (or its end). */
  'cost.series': {
    input: z.object({ runId: z.string(), points: z.number().int().min(2).max(500).default(60) }),
    output: CostSeries,
  },
  'hosts.list': { input: z.object({}).default({}), output: z.array(HostView) },
  'hosts.add': { input: HostInput, output: HostView },
  /** Forgets the pinned host key of a host (after the machine was reinstalled). */
  'hosts.forgetKey': {
    input: z.object({ name: z.string() }),
    output: z.object({ forgotten: z.boolean() }),
  },
  /** Slurm clusters (clusters.toml, docs/slurm.md): a run names one with `pool.cluster`. */
  'clusters.list': { input: z.object({}).default({}), output: z.array(ClusterView) },
  'clusters.add': { input: ClusterInput, output: ClusterView },
  'clusters.remove': {
    input: z.object({ name: z.string() }),
    output: z.object({ removed: z.boolean() }),
  },
  'hosts.remove': {
    input: z.object({ name: z.string() }),
    output: z.object({ removed: z.boolean() }),
  },
  /** Opens an interactive shell (pty) on a node; output arrives as terminal.output events. */
  'terminal.open': {
    input: z.object({
      nodeId: z.string(),
      cols: z.number().int().min(10).max(1000).default(120),
      rows: z.number().int().min(4).max(500).default(32),
      term: z.string().default('xterm-256color'),
    }),
    output: z.object({ terminalId: z.string() }),
  },
  /** Keystrokes, base64. Resolves once the node has accepted them (back-pressure). */
  'terminal.input': {
    input: z.object({ terminalId: z.string(), data: z.string() }),
    output: z.object({}),
  },
  'terminal.resize': {
    input: z.object({
      terminalId: z.string(),
      cols: z.number().int().min(10).max(1000),
      rows: z.number().int().min(4).max(500),
    }),
    output: z.object({}),
  },
  'terminal.close': { input: z.object({ terminalId: z.string() }), output: z.object({}) },
  /** Opens a forward (docs/forwards.md): a listener on this machine's 127.0.0.1 that
   *  reaches the node's 127.0.0.1:remotePort over its SSH connection. `nodeId`: `node-0`
   *  or a node key (default: the run's first node). `localPort` absent: the same port, or a
   *  free one when that is taken; 0: a free one; another: that one, or bad_input when it is
   *  taken. The same forward asked twice answers the one open. */
  'forward.open': {
    input: z.object({
      runId: z.string(),
      nodeId: z.string().optional(),
      remotePort: z.number().int().min(1).max(65535),
      localPort: z.number().int().min(0).max(65535).optional(),
    }),
    output: ForwardView,
  },
  /** A reverse forward: the node's 127.0.0.1:nodePort reaches host:localPort from here. */
  'forward.openRemote': {
    input: z.object({
      runId: z.string(),
      nodeId: z.string().optional(),
      nodePort: z.number().int().min(1).max(65535),
      host: z.string().min(1).default('localhost'),
      localPort: z.number().int().min(1).max(65535),
    }),
    output: ForwardView,
  },
  /** This process's forwards (of one run). */
  'forward.list': {
    input: z.object({ runId: z.string().optional() }).prefault({}),
    output: z.array(ForwardView),
  },
  /** Closes one forward (`remotePort`: the node's port, either direction); closing one that
   *  is not open is no error. */
  'forward.close': {
    input: z.object({
      runId: z.string(),
      nodeId: z.string(),
      remotePort: z.number().int().min(1).max(65535),
      direction: z.enum(['local', 'remote']).default('local'),
    }),
    output: z.object({ closed: z.boolean() }),
  },
} as const;

export const events = {
  'run.changed': RunView,
  'node.changed': NodeView,
  'lease.changed': LeaseView,
  'log.lines': LogBatch,
  'terminal.output': TerminalOutput,
  'terminal.exit': TerminalExit,
  'forward.changed': ForwardsChanged,
} as const;

export type Commands = typeof commands;
export type CommandName = keyof Commands;
export type CommandInput<C extends CommandName> = z.input<Commands[C]['input']>;
export type CommandArgs<C extends CommandName> = z.output<Commands[C]['input']>;
export type CommandOutput<C extends CommandName> = z.output<Commands[C]['output']>;
export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;
