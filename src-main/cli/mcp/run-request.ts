// What `tender_run` is asked to run, read the way `tender run` reads it: a job file (or a
// SkyPilot/dstack task) or job file text, checked in full, with the run tool's pool fields
// laid over `[pool]` as `tender run`'s flags are, and the workspace push consented to the
// same way. Nothing is opened or rented here.
import path from 'node:path';
import { z } from 'zod';
import { TenderError } from '../../base/tender-error';
import type { JobSpec, PolicyInput, PoolSpec } from '../../contract';
import { parseJobToml, type LoadedJobFile } from '../../jobs/job-file/job-file';
import { KNOWN_PROVIDERS } from '../../providers/known';
import type { CliContext } from '../context';
import { durationFlag } from '../commands/flags';
import { withGrid } from '../commands/run';
import { checkPushConsent, loadJobOrTask } from '../commands/run-input';
import { poolFlags } from '../commands/run-pool-flags';

/** Every MCP run has a max duration; this one when neither the agent nor the job gives one. */
export const DEFAULT_MAX_DURATION = '2h';
const DEFAULT_MAX_DURATION_MS = 2 * 3_600_000;

export const RunArgs = {
  job_file: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Path of a tender.toml (or a folder holding one, or a SkyPilot/dstack task); relative to where tender mcp runs',
    ),
  job: z
    .string()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe(
      'The job as tender.toml text, instead of job_file; its workspace is where tender mcp runs',
    ),
  provider: z
    .string()
    .min(1)
    .optional()
    .describe(
      'local, ssh, slurm, vastai, runpod, lambda, or marketplaces in order "runpod,vastai"',
    ),
  count: z.number().int().min(1).max(64).optional().describe('Nodes to rent (default 1)'),
  gpu: z.string().min(1).optional().describe('GPU model on a marketplace, e.g. "RTX 4090"'),
  gpus: z.number().int().min(1).max(16).optional().describe('GPUs per node'),
  max_price: z
    .number()
    .positive()
    .optional()
    .describe(
      'Most $/h one node may cost (all-in); without it, the cheapest matching offers now set it',
    ),
  max_duration: z
    .string()
    .optional()
    .describe(
      `Each node's life limit, e.g. "30m", "6h" (default ${DEFAULT_MAX_DURATION}); the node enforces it`,
    ),
  hosts: z.array(z.string().min(1)).optional().describe('ssh provider: host names from hosts.toml'),
  grid: z
    .array(z.string())
    .optional()
    .describe('A sweep: "NAME=v1,v2" per axis, like tender run --grid'),
};
export type RunArgs = z.infer<z.ZodObject<typeof RunArgs>>;

export interface RunRequest {
  job: JobSpec;
  pool: PoolSpec;
  policy: PolicyInput & { maxDurationMs: number };
  source: string | undefined;
}

/** Reads and checks what the agent asked to run. Throws bad input naming the fix. `cwd`:
 *  where `tender mcp` runs (a relative job_file, job text's workspace). */
export async function readRunRequest(
  args: RunArgs,
  ctx: CliContext,
  cwd: string = process.cwd(),
): Promise<RunRequest> {
  if ((args.job_file === undefined) === (args.job === undefined))
    throw new TenderError(
      'bad_input',
      'give the job either as job_file (a path) or as job (tender.toml text), one of the two',
    );
  const overlay = poolFlags({
    provider: args.provider,
    count: args.count === undefined ? undefined : String(args.count),
    gpu: args.gpu,
    gpus: args.gpus === undefined ? undefined : String(args.gpus),
    'max-price': args.max_price === undefined ? undefined : String(args.max_price),
    hosts: args.hosts?.join(','),
  });
  const loaded: LoadedJobFile =
    args.job_file !== undefined
      ? loadJobOrTask(path.resolve(cwd, args.job_file), ctx, {
          plain: {},
          secrets: {},
          poolFlags: overlay,
        })
      : {
          ...parseJobToml(args.job!, {
            file: 'job',
            baseDir: cwd,
            knownProviders: KNOWN_PROVIDERS,
            env: ctx.env,
            poolFlags: overlay,
          }),
          file: path.join(cwd, 'job'),
        };
  await checkPushConsent(loaded, { pushSecrets: false, workdirOutside: false });
  const job = args.grid?.length ? withGrid(loaded.job, args.grid) : loaded.job;
  return {
    job,
    pool: loaded.pool,
    policy: { ...loaded.policy, maxDurationMs: maxDuration(args, loaded.policy) },
    source: args.job_file === undefined ? undefined : loaded.file,
  };
}

/** The agent's, else the job's, else the default: never none. */
function maxDuration(args: RunArgs, policy: PolicyInput): number {
  if (args.max_duration !== undefined) {
    const ms = durationFlag('max_duration', args.max_duration, false);
    if (ms !== null) return ms;
  }
  return policy.maxDurationMs ?? DEFAULT_MAX_DURATION_MS;
}
