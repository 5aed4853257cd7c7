// The commands that start and drive runs (a job on a pool of nodes, a sweep's cells), what
// they would do, their receipts, and the job files runs come from. Part of the one command
// table in commands.ts.
import { z } from 'zod';
import { Receipt } from './receipt';
import { CellView } from './sweep';
import { JobSpec, PoolSpec } from './job';
import { PolicyInput } from './policy';
import { RunOrigin } from './run-origin';
import { RunPlan, RunView } from './run-view';
import { StatusView } from './status-view';

export const runCommands = {
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
      /** Who starts it (contract/run-origin.ts): `cli`, `app`, `mcp:<client>`. Shown with
       *  the run; left out: none. */
      origin: RunOrigin.optional(),
      /** Rebuild the job's persistent environment even when one is ready. */
      freshSetup: z.boolean().default(false),
      /** Claim a warm node (kept after an earlier job, same host key and pool) instead of
       *  renting; false: always rent anew. */
      reuseWarm: z.boolean().default(true),
      /** Values of secrets the pool names by variable (`image_login.password_env`), kept in
       *  memory only; a name not given is read from the environment of the process that
       *  runs Tender. */
      secrets: z.record(z.string(), z.string()).default({}),
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
      /** Who starts the new run (not the earlier run's origin), as for `run.start`. */
      origin: RunOrigin.optional(),
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
      /** Who starts the new run, as for `run.start`. */
      origin: RunOrigin.optional(),
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
    input: z.object({ runId: z.string(), cellId: z.string() }),
    output: CellView,
  },
  /** Where a run would go, without starting it: each node a warm node it would claim (and
   *  whether its setup looks cached) or a new lease, with why warm nodes were passed over. */
  'run.plan': {
    input: z.object({ job: JobSpec, pool: PoolSpec, reuseWarm: z.boolean().default(true) }),
    output: RunPlan,
  },
  /** The receipts of a run's finished jobs (contract/receipt.ts), one per node that has
   *  one (a sweep: one per cell); `nodeName` (`node-0`, or its key `r-…/node-0`) for one
   *  node, `cellId` (`j03`) for one cell. */
  'run.receipts': {
    input: z.object({
      runId: z.string(),
      nodeName: z.string().optional(),
      cellId: z.string().optional(),
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
} as const;
