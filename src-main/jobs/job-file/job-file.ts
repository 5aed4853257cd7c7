import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { JobSpec, PoolSpec } from '../../contract/job';
import { parseDuration, type PolicyInput } from '../../contract/policy';
import { BadInputError } from '../../base/bad-input-error';
import { resolveEnv, checkParams } from './job-file-env';
import { checkHostSetupSecrets } from '../secrets/host-setup-secrets';
import { problemsFromIssues } from './job-file-issues';
import { checkHostResources } from '../host/host-declaration';
import { findUnknownKeys } from './job-file-keys';
import { readSweep } from './job-file-sweep';
import { checkDistributed, poolSize } from './job-file-distributed';
import {
  checkCheckpoints,
  checkOutputs,
  checkSetupFingerprint,
  resolveWorkdir,
} from './job-file-paths';
import type { Problem } from './job-file-problem';
import { JobFile, type PolicyTable } from './job-file-schema';
import { locateTomlKeys, type KeyPositions } from './toml-key-positions';
import { providerNameProblem } from '../../providers/failover/chain';

export { redactJob } from '../secrets/redact-job';

/** The name looked for when a folder is given instead of a job file. */
export const JOB_FILE_NAME = 'tender.toml';

export interface JobFileOptions {
  /** Provider kinds this build can use; `pool.provider` must be one of them. */
  knownProviders: readonly string[];
  /** Where `from_env` secrets are read from; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The command line's pool flags (`--hosts`, `--count`, …), laid over `[pool]` before the
   *  checks, so that every check sees the pool the run will use. */
  poolFlags?: (pool: PoolSpec) => PoolSpec;
}

export interface ParseJobTomlOptions extends JobFileOptions {
  /** How messages name the text: a path, or a label such as `<editor>`. */
  file: string;
  /** The folder a relative `workspace.workdir` is resolved against. */
  baseDir: string;
}

export interface LoadedJobFile {
  job: JobSpec;
  /** `[pool]` with defaults filled in, and `poolFlags` laid over it where given. */
  pool: PoolSpec;
  /** `[policy]` as written (only the keys present); Settings fill in the rest. */
  policy: PolicyInput;
  file: string;
  /** What `[job.workspace]` says was chosen knowingly (push-consent.ts checks it). */
  workspaceChoices?: { pushSecrets: boolean; workdirOutside: boolean };
}

/**
 * Reads and checks a job file. `jobFile` may also be a folder holding `tender.toml`.
 * Throws BadInputError with a one-line `file:line:col:` message on anything unusable.
 */
export function loadJobFile(jobFile: string, opts: JobFileOptions): LoadedJobFile {
  let file = path.resolve(jobFile);
  let text: string;
  try {
    if (statSync(file).isDirectory()) file = path.join(file, JOB_FILE_NAME);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BadInputError(`no such file: ${file}`, { file, cause: err });
    throw new BadInputError(`cannot read ${file}: ${code ?? String(err)}`, { file, cause: err });
  }
  return parseJobToml(text, { ...opts, file, baseDir: path.dirname(file) });
}

/** Checks job file text held in memory (the composer sends text, not a path). */
export function parseJobToml(text: string, opts: ParseJobTomlOptions): LoadedJobFile {
  const { file } = opts;
  let doc: Record<string, unknown>;
  try {
    // 'throw' keeps __proto__ and friends out of the objects built from this document.
    doc = parse(text, { unsafeKeyBehaviour: 'throw' });
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const reason = err.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
    throw BadInputError.at(file, { line: err.line, column: err.column }, `invalid TOML: ${reason}`);
  }
  const keys = locateTomlKeys(text);
  const failOn = (problems: Problem[]): void => {
    if (problems.length > 0) throw toError(file, keys, problems);
  };

  failOn(findUnknownKeys(doc));
  const parsed = JobFile.safeParse(doc);
  if (!parsed.success) {
    failOn(problemsFromIssues(doc, parsed.error.issues));
    throw BadInputError.at(file, undefined, 'not a job file'); // every issue maps to a problem
  }
  const { job: table, policy = {}, recovery } = parsed.data;
  const filePool = parsed.data.pool ?? PoolSpec.parse({});
  const pool = opts.poolFlags ? opts.poolFlags(filePool) : filePool;
  const sweep = readSweep(parsed.data.sweep);

  const env = resolveEnv(table.env, opts.env ?? process.env);
  // Without a [job.workspace], the folder holding the job file is the workspace.
  const workdir = resolveWorkdir(table.workspace?.workdir ?? '.', opts.baseDir);
  const outputs = checkOutputs(table.outputs);
  failOn([
    ...env.problems,
    ...checkHostSetupSecrets(table.host_setup, env.env),
    ...(workdir.problem ? [workdir.problem] : []),
    ...outputs.problems,
    ...(workdir.problem
      ? []
      : checkSetupFingerprint(
          table.setup_fingerprint,
          table.setup,
          workdir.workdir,
          table.setup_cache,
        )),
    ...checkParams(table.params),
    ...checkProvider(pool.provider, opts.knownProviders),
    ...checkHostResources(pool),
    ...checkCheckpoints(table.checkpoints),
    ...sweep.problems,
    ...checkDistributed(
      { ...table, ...(sweep.sweep ? { sweep: sweep.sweep } : {}) },
      poolSize(pool),
    ),
  ]);

  const { checkpoint_every, ...jobTable } = table;
  const job = JobSpec.parse({
    ...jobTable,
    ...(checkpoint_every
      ? { checkpoint_every_s: Math.round(parseDuration(checkpoint_every)! / 1000) }
      : {}),
    ...(recovery ? { recovery } : {}),
    ...(sweep.sweep ? { sweep: sweep.sweep } : {}),
    workspace: { workdir: workdir.workdir, exclude: table.workspace?.exclude ?? [] },
    outputs: outputs.outputs,
    env: env.env,
  });
  const workspaceChoices = {
    pushSecrets: table.workspace?.push_secrets === true,
    workdirOutside: table.workspace?.workdir_outside === true,
  };
  const isChosen = workspaceChoices.pushSecrets || workspaceChoices.workdirOutside;
  return {
    job,
    pool,
    policy: policyInput(policy),
    file,
    ...(isChosen ? { workspaceChoices } : {}),
  };
}

/** `[policy]` → the contract's PolicyInput (durations in ms; keys left out stay out). */
export function policyInput(t: PolicyTable): PolicyInput {
  const out: PolicyInput = {};
  if (t.max_duration !== undefined) out.maxDurationMs = parseDuration(t.max_duration) ?? null;
  if (t.idle_timeout !== undefined) out.idleTimeoutMs = parseDuration(t.idle_timeout) ?? null;
  if (t.unreachable_grace !== undefined)
    out.unreachableGraceMs = parseDuration(t.unreachable_grace) ?? undefined;
  if (t.collect_grace !== undefined)
    out.collectGraceMs = parseDuration(t.collect_grace) ?? undefined;
  if (t.budget_usd !== undefined) out.budgetUsd = t.budget_usd;
  if (t.idle_gpu_util_below !== undefined) out.idleGpuUtilBelow = t.idle_gpu_util_below;
  if (t.after_job !== undefined) out.afterJob = t.after_job;
  if (t.gpu_idle !== undefined) {
    const { below, for: window, then } = t.gpu_idle;
    out.gpuIdle = { belowPct: below, forMs: parseDuration(window) ?? 0, then };
  }
  return out;
}

function checkProvider(provider: string, known: readonly string[]): Problem[] {
  const problem = providerNameProblem(provider, known);
  if (!problem) return [];
  return [
    {
      path: ['pool', 'provider'],
      text: `${problem.text}; ${problem.hint}`,
      hint: 'set provider in [pool] to one of the known providers, or pass one on the command line',
    },
  ];
}

/** Reports the problem that comes first in the file: the one a person reads first. */
function toError(file: string, keys: KeyPositions, problems: Problem[]): BadInputError {
  const placed = problems.map((problem) => ({ problem, pos: keys.nearest(problem.path) }));
  const rank = (p: (typeof placed)[number]): number =>
    p.pos ? p.pos.line * 1e6 + p.pos.column : Number.MAX_SAFE_INTEGER;
  const first = placed.reduce((a, b) => (rank(b) < rank(a) ? b : a));
  return BadInputError.at(file, first.pos, first.problem.text, first.problem.hint);
}
