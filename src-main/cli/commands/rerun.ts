import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { loadJobFile } from '../../jobs/job-file';
import { KNOWN_PROVIDERS } from '../../providers/known';
import { call, type CliContext } from '../context';
import { followRun } from './run';

export const RERUN_USAGE =
  'tender rerun <runId> [--failed] [--fresh-setup] [--new-node] [--secret NAME=VALUE]… [--detach] [--json]';

/** The same job and pool as an earlier run, on its warm node when one is kept (no create,
 *  no bootstrap, a delta push, setup skipped while its fingerprint matches). */
export async function rerunCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'fresh-setup': { type: 'boolean', default: false },
      failed: { type: 'boolean', default: false },
      'new-node': { type: 'boolean', default: false },
      secret: { type: 'string', multiple: true, default: [] },
      detach: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', short: 'v', default: false },
    },
  });
  if (positionals.length !== 1)
    throw new TenderError('bad_input', 'name the run to run again', `usage: ${RERUN_USAGE}`);
  const runId = positionals[0]!;
  const given = secretFlags(values.secret);
  return followRun(
    ctx,
    async (core: TenderCore) => {
      const before = await call(core, 'run.get', { runId });
      return call(core, 'run.rerun', {
        runId,
        freshSetup: values['fresh-setup'],
        reuseWarm: !values['new-node'],
        failed: values.failed,
        secrets: { ...secretsFromSource(before.source ?? null, ctx), ...given },
      });
    },
    {
      verbose: values.verbose === true,
      detach: values.detach === true,
      json: values.json === true,
    },
  );
}

/** Secrets are never kept in the ledger: the job file the run came from, when it is still
 *  there, gives them again (`from_env` ones from this process's environment). */
function secretsFromSource(source: string | null, ctx: CliContext): Record<string, string> {
  if (!source || !existsSync(source)) return {};
  try {
    const { job } = loadJobFile(source, { knownProviders: KNOWN_PROVIDERS, env: ctx.env });
    const out: Record<string, string> = {};
    for (const [name, v] of Object.entries(job.env))
      if (typeof v !== 'string' && 'value' in v) out[name] = v.value;
    return out;
  } catch {
    return {}; // an edited job file that no longer parses: the run says which secret is missing
  }
}

function secretFlags(flags: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of flags) {
    const eq = f.indexOf('=');
    if (eq <= 0)
      throw new TenderError('bad_input', `--secret takes NAME=VALUE, not "${f.slice(0, 40)}"`);
    out[f.slice(0, eq)] = f.slice(eq + 1);
  }
  return out;
}
