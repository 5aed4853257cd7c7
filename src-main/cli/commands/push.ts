import { parseArgs } from 'node:util';
import { TenderError } from '../../base/tender-error';
import { loadJobFile } from '../../jobs/job-file/job-file';
import { formatBytes, formatCount } from '../../jobs/workspace/human-units';
import { groupExclusions, previewWorkspace } from '../../jobs/workspace/preview';
import { scanWorkspace } from '../../jobs/workspace/scan';
import { KNOWN_PROVIDERS } from '../../providers/known';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { bold, red, table } from '../output';

export const PUSH_USAGE = `tender push --dry-run <job.toml> [--json]`;

/** `tender push --dry-run`: what a run would push, without renting or touching anything. */
export async function pushCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  if (!values['dry-run']) {
    process.stderr.write(
      'tender push only previews (--dry-run): the workspace is pushed as part of ' +
        '`tender run` (and `tender sync`), incrementally.\n' +
        `usage: ${PUSH_USAGE}\n`,
    );
    return EXIT.badInput;
  }
  if (positionals.length !== 1)
    throw new TenderError('bad_input', 'expected one job file', `usage: ${PUSH_USAGE}`);
  const loaded = loadJobFile(positionals[0]!, {
    knownProviders: KNOWN_PROVIDERS,
    env: withoutSecrets(ctx.env),
  });
  const { workdir, exclude } = loaded.job.workspace!;
  const scan = await scanWorkspace(workdir, exclude);
  const preview = previewWorkspace(scan);

  if (values.json) {
    process.stdout.write(`${JSON.stringify({ root: scan.root, ...preview }, null, 2)}\n`);
  } else {
    const out: string[] = [
      bold(`workspace ${scan.root}`, process.stdout),
      `  ${formatCount(preview.files)} files, ${formatBytes(preview.bytes)} would be pushed`,
    ];
    const groups = groupExclusions(preview.excluded);
    if (groups.length > 0) out.push('', `excluded (${formatCount(preview.excluded.length)}):`);
    for (const g of groups) {
      out.push(`  ${g.title} (${formatCount(g.entries.length)})`);
      const rows = g.entries.map((e) => [
        `    ${e.path}`,
        e.rule === undefined ? '' : e.source ? `${e.rule}  (${e.source})` : e.rule,
      ]);
      out.push(table(rows).replace(/ +$/gm, ''));
    }
    if (preview.largest.length > 0) {
      out.push('', 'largest files:');
      out.push(table(preview.largest.map((f) => [`  ${formatBytes(f.size)}`, f.path])));
    }
    process.stdout.write(`${out.join('\n')}\n`);
  }
  for (const s of preview.secrets) {
    process.stderr.write(
      `${red(bold('WARNING:'))} ${s.path} looks like a secret (matches ${s.pattern}) and WILL be ` +
        'pushed; add it to [job.workspace] exclude unless the job needs it\n',
    );
  }
  return EXIT.ok;
}

/**
 * The environment a job file is read with here: a preview sends nothing, so a `from_env`
 * secret that is not set must not stop it (its value is never read or shown).
 */
function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return new Proxy(env, {
    get: (target, key) =>
      typeof key === 'string' ? target[key] || 'unset: not needed for a preview' : undefined,
  });
}
