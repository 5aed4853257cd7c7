import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { loadJobFile } from '../../jobs/job-file/job-file';
import { KNOWN_PROVIDERS } from '../../providers/known';
import { call, type CliContext } from '../context';
import { followRun, type FollowOptions } from './run';
import { CLI_ORIGIN, compareOutputs, Receipt, type CommandOutput } from '../../contract';
import { BadInputError } from '../../base/bad-input-error';
import { EXIT } from '../exit-codes';
import { green, info, red, yellow } from '../output';
import { terminalPrompt } from '../hidden-prompt';
import { readSecretFlags } from '../secret-input';

export const RERUN_USAGE =
  'tender rerun <runId> [--failed] | --receipt receipt.json [--verify]  [--fresh-setup] [--new-node] [--secret NAME | NAME=@file]… [--secret-file FILE]… [--detach] [--json]';

/** The same job and pool as an earlier run, on its warm node when one is kept (no create,
 *  no bootstrap, a delta push, setup skipped while its fingerprint matches). */
export async function rerunCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'fresh-setup': { type: 'boolean', default: false },
      failed: { type: 'boolean', default: false },
      receipt: { type: 'string' },
      verify: { type: 'boolean', default: false },
      'new-node': { type: 'boolean', default: false },
      secret: { type: 'string', multiple: true, default: [] },
      'secret-file': { type: 'string', multiple: true, default: [] },
      detach: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', short: 'v', default: false },
    },
  });
  const given = await readSecretFlags(values.secret, values['secret-file'], {
    env: ctx.env,
    prompt: terminalPrompt(),
  });
  const follow = {
    verbose: values.verbose === true,
    detach: values.detach === true,
    json: values.json === true,
  };
  if (values.receipt !== undefined) {
    if (positionals.length > 0 || values.failed)
      throw new TenderError(
        'bad_input',
        '--receipt names what to run: leave the run id and --failed out',
        `usage: ${RERUN_USAGE}`,
      );
    if (values.verify && values.detach)
      throw new TenderError('bad_input', '--verify waits for the rerun to end: leave --detach out');
    return rerunReceipt(ctx, readReceiptFile(values.receipt), given, {
      ...follow,
      verify: values.verify === true,
      freshSetup: values['fresh-setup'],
      reuseWarm: !values['new-node'],
    });
  }
  if (values.verify)
    throw new TenderError(
      'bad_input',
      '--verify compares against a receipt: give it with --receipt receipt.json',
    );
  if (positionals.length !== 1)
    throw new TenderError('bad_input', 'name the run to run again', `usage: ${RERUN_USAGE}`);
  const runId = positionals[0]!;
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
        origin: CLI_ORIGIN,
      });
    },
    follow,
  );
}

/** A receipt file, checked: bad JSON at its line:col, a field that is not a receipt's. */
function readReceiptFile(file: string): Receipt {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new BadInputError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      { file },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    const pos = at ? lineCol(text, Number(at[1])) : undefined;
    throw BadInputError.at(
      file,
      pos,
      `not JSON: ${(err as Error).message.replace(/ in JSON at position \d+.*$/, '')}`,
    );
  }
  const parsed = Receipt.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw BadInputError.at(
      file,
      undefined,
      `not a Tender receipt: ${issue.path.join('.') || 'the top level'}: ${issue.message}`,
      'give the receipt.json a run wrote (`tender receipt <runId> --json` prints one)',
    );
  }
  return parsed.data;
}

function lineCol(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

async function rerunReceipt(
  ctx: CliContext,
  receipt: Receipt,
  given: Record<string, string>,
  opts: FollowOptions & { verify: boolean; freshSetup: boolean; reuseWarm: boolean },
): Promise<number> {
  let runId = '';
  const code = await followRun(
    ctx,
    async (core: TenderCore) => {
      const source = (await call(core, 'run.get', { runId: receipt.runId })).source ?? null;
      const { run, workspace } = await call(core, 'run.fromReceipt', {
        receipt,
        secrets: { ...secretsFromSource(source, ctx), ...given },
        freshSetup: opts.freshSetup,
        reuseWarm: opts.reuseWarm,
        origin: CLI_ORIGIN,
      });
      runId = run.id;
      for (const line of workspaceWarning(workspace)) info(line);
      return run;
    },
    opts,
  );
  if (!opts.verify) return code;
  const core = TenderCore.openAny({ ...ctx.coreOptions, reconcile: false });
  if (!core) return EXIT.infrastructure;
  try {
    const [again] = await call(core, 'run.receipts', { runId });
    if (!again) {
      info(red(`not verified: run ${runId} wrote no receipt`));
      return EXIT.infrastructure;
    }
    const cmp = compareOutputs(receipt, again);
    for (const p of cmp.same) info(green(`  same     ${p}`));
    for (const p of cmp.differ) info(red(`  differs  ${p}`));
    for (const p of cmp.missing) info(red(`  missing  ${p}`));
    for (const p of cmp.extra) info(`  new      ${p}`);
    const ok = cmp.differ.length === 0 && cmp.missing.length === 0;
    info(
      ok
        ? green(`verified: ${cmp.same.length} output(s) identical to ${receipt.jobId}`)
        : red(
            `not reproduced: ${cmp.differ.length} differ, ${cmp.missing.length} missing of ${receipt.outputs.files.length} in ${receipt.jobId}`,
          ),
    );
    return ok ? code : EXIT.jobFailed;
  } finally {
    await core.close();
  }
}

function workspaceWarning(w: CommandOutput<'run.fromReceipt'>['workspace']): string[] {
  if (w.same) return [];
  if (w.added === null)
    return [
      yellow(
        "warning: the workspace is not the one the receipt's job was given (its file list is not here to say how)",
      ),
    ];
  const n = w.added.length + w.removed!.length + w.changed!.length;
  return [
    yellow(
      `warning: the workspace differs from the one the receipt's job was given (${n} file(s)):`,
    ),
    ...w.changed!.map((p) => yellow(`  changed  ${p}`)),
    ...w.added.map((p) => yellow(`  added    ${p}`)),
    ...w.removed!.map((p) => yellow(`  removed  ${p}`)),
  ];
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
