import path from 'node:path';
import { parseArgs } from 'node:util';
import { TenderError } from '../../base/tender-error';
import { parseJobToml } from '../../jobs/job-file/job-file';
import { convertTask, refusalError } from '../../jobs/import/convert';
import { explainTable } from '../../jobs/import/explain';
import { readTaskText } from '../../jobs/import/load-task';
import { KNOWN_PROVIDERS } from '../../providers/known';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { info } from '../output';
import { writeUserFile } from '../../base/private-files';
import { readEnvFlags } from '../env-flags';

export const IMPORT_USAGE = `tender import <task.yaml> [-o tender.toml] [--explain] [--env NAME=VALUE]…   (a SkyPilot task or a dstack type: task; tender run task.yaml runs one directly)`;

/** Converts a SkyPilot or dstack task into a Tender job file, checked as `tender run` checks
 *  one; `--explain` prints what became of each key. */
export async function importCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      explain: { type: 'boolean', default: false },
      env: { type: 'string', multiple: true },
    },
  });
  if (positionals.length !== 1)
    throw new TenderError('bad_input', 'expected one task file', `usage: ${IMPORT_USAGE}`);
  const file = path.resolve(positionals[0]!);
  const outFile = values.output === undefined ? undefined : path.resolve(values.output);
  // The workspace is written relative to the job file; printed, it is meant to sit beside
  // the YAML.
  const outDir = outFile ? path.dirname(outFile) : path.dirname(file);
  const conversion = convertTask(readTaskText(file), {
    file,
    yamlDir: path.dirname(file),
    cwd: process.cwd(),
    home: ctx.env.HOME ?? process.env.HOME ?? '/',
    outDir,
    env: readEnvFlags(values.env, ctx.env),
  });
  if (values.explain) process.stdout.write(explainTable(conversion.outcomes));
  if (conversion.toml === null) throw refusalError(conversion, file);
  // Each warning named by its key (as `tender run task.yaml` prints them); --explain's
  // table has them already.
  if (!values.explain)
    for (const o of conversion.outcomes)
      if (o.kind === 'warned')
        info(`${path.basename(file)}: ${o.path}: ${o.to ? `→ ${o.to}; ` : 'left out: '}${o.why}`);

  // The same loader and checks as `tender run`: secrets need not be set to import.
  const placeholders = Object.fromEntries(conversion.secretNames.map((n) => [n, 'placeholder']));
  parseJobToml(conversion.toml, {
    file: outFile ?? `${file} (as converted)`,
    baseDir: outDir,
    knownProviders: KNOWN_PROVIDERS,
    env: { ...placeholders, ...ctx.env },
  });
  const warned = conversion.outcomes.filter((o) => o.kind === 'warned').length;
  if (outFile) {
    writeUserFile(outFile, conversion.toml);
    info(
      `wrote ${outFile} from a ${conversion.tool} task${warned ? `; ${warned} key(s) warned: --explain says why` : ''}`,
    );
  } else if (!values.explain) process.stdout.write(conversion.toml);
  return EXIT.ok;
}
