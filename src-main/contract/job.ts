import { z } from 'zod';
import { parseConstraint } from './constraint';
import { SweepSpec } from './sweep';
import { ImageLogin } from './image-login';
import { parseDuration } from './policy';

/** `pull_stall`'s range: under a minute is noise between two looks (Tender looks every
 *  10 s); over a day is no watchdog. */
export const PULL_STALL_MIN_MS = 60_000;
export const PULL_STALL_MAX_MS = 24 * 3_600_000;
export const PULL_STALL_RULE =
  'pull_stall must be a duration from 1m to 24h, e.g. "15m": how long an image pull may make no progress before its host is given up';

/** Whether `text` is a `pull_stall` Tender takes. */
export function isPullStall(text: string): boolean {
  const ms = parseDuration(text);
  return typeof ms === 'number' && ms >= PULL_STALL_MIN_MS && ms <= PULL_STALL_MAX_MS;
}

/** An environment value: plain, or a secret whose value is sent to the agent over the link
 *  only and is never stored in the ledger, printed, or put on a command line. */
export const EnvValue = z.union([
  z.string(),
  z.object({ secret: z.literal(true), value: z.string() }).strict(),
  /** Read from the environment of the process that runs Tender, when the run starts: the
   *  value never passes through a UI. */
  z
    .object({ secret: z.literal(true), fromEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/) })
    .strict(),
]);
export type EnvValue = z.infer<typeof EnvValue>;

/** One host-setup command: a script, or a table with the script and its options. `refresh_capabilities`
 *  re-probes the node's capabilities after it (a driver install changes what it can do);
 *  `secrets` names secrets of the job's env it runs with, as environment variables (sent
 *  over the agent's link only, never in the declaration, a command line or the ledger). */
export const HostSetupEntry = z.union([
  z.string().min(1),
  z
    .object({
      script: z.string().min(1),
      name: z.string().min(1).optional(),
      refresh_capabilities: z.boolean().default(false),
      secrets: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional(),
    })
    .strict(),
]);
export type HostSetupEntry = z.infer<typeof HostSetupEntry>;

/** What a job recovers from: `node_lost` (the provider no longer lists the node, or says it
 *  exited), `preempted` (an interruptible node taken back), `exit_code:N`. */
export const RecoveryCause = z.string().regex(/^(node_lost|preempted|exit_code:\d{1,3})$/, {
  message: 'recovery.on takes "node_lost", "preempted" or "exit_code:N" (e.g. "exit_code:137")',
});

export const RecoverySpec = z
  .object({
    max_restarts: z.number().int().min(0).max(100).default(1),
    on: z.array(RecoveryCause).default(['node_lost']),
  })
  .strict();
export type RecoverySpec = z.infer<typeof RecoverySpec>;

/** One constraint expression, refused here when it does not parse (with the form). */
const ConstraintText = z.string().superRefine((text, ctx) => {
  try {
    parseConstraint(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
});

/** A TCP port, 1–65535. */
export const PortNumber = z
  .number()
  .int()
  .min(1, { message: 'a port is a number from 1 to 65535' })
  .max(65535, { message: 'a port is a number from 1 to 65535' });

const isPort = (t: string) => /^\d{1,5}$/.test(t) && Number(t) >= 1 && Number(t) <= 65535;

/** `"6006:16006"`: a port on the node, and the local port that reaches it. */
export const PortPair = z.string().refine(
  (t) => {
    const [a, b, ...rest] = t.split(':');
    return rest.length === 0 && a !== undefined && b !== undefined && isPort(a) && isPort(b);
  },
  { message: 'a forward is "NODE_PORT:LOCAL_PORT", each from 1 to 65535 (e.g. "6006:16006")' },
);

/** `"5000:localhost:5000"`: a port on the node, and the host:port here it reaches. */
export const RemotePortSpec = z.string().refine(
  (t) => {
    const m = /^(\d{1,5}):([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(t);
    return m !== null && isPort(m[1]!) && isPort(m[3]!);
  },
  {
    message:
      'a remote port is "NODE_PORT:HOST:PORT", the ports from 1 to 65535 (e.g. "5000:localhost:5000")',
  },
);

/** What to do: the `[job]` table. Nothing about hardware. Paths are absolute once loaded. */
export const JobSpec = z
  .object({
    name: z.string().min(1).max(200),
    run: z.string().min(1),
    setup: z.string().min(1).optional(),
    workspace: z
      .object({
        /** Absolute path of the folder pushed to the node. */
        workdir: z.string().min(1),
        /** gitignore-style patterns, relative to workdir. */
        exclude: z.array(z.string()).default([]),
      })
      .strict()
      .optional(),
    /** Paths relative to the workspace, collected after run (a trailing / means a folder). */
    outputs: z.array(z.string().min(1)).default([]),
    env: z.record(z.string(), EnvValue).default({}),
    /** Task parameters, exposed as TENDER_PARAM_<KEY>. */
    params: z.record(z.string(), z.string()).default({}),
    /** Workspace files (e.g. requirements.txt) whose contents, with the setup command and
     *  the image, key the persistent environment on the node ($TENDER_ENV): while they are
     *  unchanged and the environment is ready, setup is skipped. Empty: the usual dependency
     *  files found in the workspace and the files the setup command names key it
     *  (src-agent/daemon/environment/setup-key.ts). */
    setup_fingerprint: z.array(z.string().min(1)).default([]),
    /** false: setup runs every run, into a fresh $TENDER_ENV (a setup with effects outside
     *  its environment). */
    setup_cache: z.boolean().default(true),
    /** Host setup (docs/host-setup.md): ordered commands that prepare the machine, part of
     *  its host key; drained by the agent one at a time before the job's own setup, and
     *  appendable to a live node (`tender node setup`). */
    host_setup: z.array(HostSetupEntry).default([]),
    /** Runs once per machine, at its first bootstrap; a failure means the node never joins.
     *  Part of the host key. */
    bootstrap_script: z.string().min(1).optional(),
    /** Runs before every run, after setup; not in the host key. */
    run_setup: z.string().min(1).optional(),
    /** A workspace folder (e.g. "ckpt/") pulled back while the job runs (every
     *  `checkpoint_every_s`, and at its end) and restored into a recovered attempt's
     *  workspace before it runs. */
    checkpoints: z.string().min(1).optional(),
    checkpoint_every_s: z.number().int().min(5).max(86_400).optional(),
    /** `[recovery]`: a new attempt on a new node when the node is proved lost or the run
     *  exits with a listed code; at most `max_restarts` times. */
    recovery: RecoverySpec.optional(),
    /** Capability constraints (constraint.ts), every one checked against what a node's
     *  agent probed when it joins: a node that fails one is a failed boot (destroyed,
     *  confirmed, its host remembered, another tried). */
    constraints: z.array(ConstraintText).default([]),
    /** `[sweep]` (sweep.ts): one job per cell of the grid, queued over the run's nodes. */
    sweep: SweepSpec.optional(),
    /** A distributed run (`count` ≥ 2): every node is provisioned and set up, then `run`
     *  starts on all of them together with TENDER_NODE_RANK, TENDER_NUM_NODES,
     *  TENDER_NODE_IPS, MASTER_ADDR, MASTER_PORT (and the SkyPilot/dstack aliases), once
     *  each rank has reached rank 0's MASTER_PORT (docs/distributed.md). */
    distributed: z.boolean().default(false),
    /** A distributed run's stop rule: `all` — it succeeds when every rank exits 0 and
     *  fails, stopping the others, when one fails; `rank0` — it ends with rank 0. */
    stop: z.enum(['all', 'rank0']).default('all'),
    /** Rank 0's port for the others (MASTER_PORT). */
    master_port: PortNumber.default(29500),
    /** Ports on the node reached from this machine's 127.0.0.1 while the job runs:
     *  `6006` (the same local port) or `"6006:16006"` (node:local). */
    ports: z.array(z.union([PortNumber, PortPair])).default([]),
    /** Ports on the node's 127.0.0.1 that reach a service here: `"5000:localhost:5000"`. */
    remote_ports: z.array(RemotePortSpec).default([]),
    /** Memoization: a cell whose strict key (command, setup and its fingerprint, params,
     *  workspace, image, constraints, Tender's version) matches a completed cell's takes
     *  that cell's outputs instead of running. */
    cache: z.boolean().default(false),
  })
  .strict();
export type JobSpec = z.infer<typeof JobSpec>;
export type JobSpecInput = z.input<typeof JobSpec>;

export const ProviderKind = z.enum(['local', 'ssh', 'vastai', 'slurm', 'runpod', 'lambda']);
export type ProviderKind = z.infer<typeof ProviderKind>;

/** The hardware designation a job is submitted with (not part of the job). */
export const PoolSpec = z
  .object({
    /** One provider, or several marketplaces tried in order (`["runpod", "vastai"]`, known
     *  as `runpod,vastai`), or `cheapest`: every configured marketplace, cheapest first. */
    provider: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1).max(8)])
      .transform((p) => (Array.isArray(p) ? p.join(',') : p))
      .default('local'),
    count: z.number().int().min(1).max(64).default(1),
    /** Commands run on the node during bootstrap; any failing one fails the node. */
    verify: z.array(z.string()).default([]),
    /** Marketplace offers picked by hand, one per node in order (a taken one falls back to
     *  the cheapest matching offer). */
    offers: z.array(z.string().min(1)).default([]),
    /** `slurm` provider: the cluster (a name from clusters.toml) and, over its defaults,
     *  the partition, account and QOS its allocations are submitted with. */
    cluster: z.string().min(1).optional(),
    partition: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/)
      .optional(),
    account: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/)
      .optional(),
    qos: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/)
      .optional(),
    /** `ssh` provider: the hosts (names from hosts.toml) to claim, one per node. */
    hosts: z.array(z.string().min(1)).default([]),
    // Marketplace providers (vastai): the desired node shape and a price cap.
    gpu: z.string().min(1).optional(),
    gpu_count: z.number().int().min(1).max(16).optional(),
    min_vram_gb: z.number().positive().optional(),
    max_price: z.number().positive().optional(),
    image: z.string().min(1).optional(),
    /** A private registry's login for `image` (contract/image-login.ts): the password is
     *  read from `password_env` when the run starts, never kept here. */
    image_login: ImageLogin.optional(),
    disk_gb: z.number().int().min(1).max(8192).optional(),
    min_reliability: z.number().min(0).max(1).optional(),
    min_down_mbps: z.number().positive().optional(),
    min_up_mbps: z.number().positive().optional(),
    verified: z.boolean().optional(),
    /** Where the machine is: a provider's region or data centre (`us-east-1`, `EU-RO-1`), a
     *  country code (`US`, `US,CA`) or a named area (`Europe`), as each provider reads it. */
    region: z.string().min(1).optional(),
    /** Rent on the interruptible market (Vast: a bid). Cheaper; an outbid lease is stopped
     *  with its disk kept until its bid wins again. */
    interruptible: z.boolean().optional(),
    /** The bid in $/h for the machine, storage not included (Vast's `price`); default: the
     *  offer's minimum bid plus a margin. Never above the on-demand price. */
    bid: z.number().positive().optional(),
    /** Marketplaces: an image pull that has made no progress for this long gives the host
     *  up (destroyed, another rented); one that keeps moving is waited for. Default 10m. */
    pull_stall: z.string().refine(isPullStall, { message: PULL_STALL_RULE }).optional(),
  })
  .strict()
  .superRefine((pool, ctx) => {
    if (pool.image_login !== undefined && pool.image === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['image_login'],
        message:
          'image_login logs in to the registry of the pool\'s image: set image = "…" too (e.g. "ghcr.io/lab/train:1")',
      });
    if (pool.bid !== undefined && pool.interruptible !== true)
      ctx.addIssue({
        code: 'custom',
        path: ['bid'],
        message:
          'a bid is the price of an interruptible lease: add interruptible = true (or --interruptible), or leave bid out',
      });
  });
export type PoolSpec = z.infer<typeof PoolSpec>;
export type PoolSpecInput = z.input<typeof PoolSpec>;
