import { parseArgs } from 'node:util';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { green, info, red } from '../output';

export const DOWN_USAGE =
  'tender down <runId|leaseId> [--json] | tender down --all [--no-orphans] [--json] | tender down --orphans [--json]';

export async function downCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      all: { type: 'boolean', default: false },
      orphans: { type: 'boolean' },
      'no-orphans': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const onlyOrphans = values.orphans === true && !values.all;
  const target = positionals[0];
  if (positionals.length > 1 || (target !== undefined && (values.all || onlyOrphans))) {
    throw new TenderError(
      'bad_input',
      'name one run or lease, or use --all / --orphans, not both',
      `usage: ${DOWN_USAGE}`,
    );
  }
  if (!values.all && !onlyOrphans && target === undefined) {
    throw new TenderError('bad_input', 'say what to tear down', `usage: ${DOWN_USAGE}`);
  }
  const core = TenderCore.open(ctx.coreOptions);
  try {
    core.bus.on('node.changed', (n) => {
      if (n.stage === 'destroying' || n.stage === 'destroyed')
        info(`${n.leaseId ?? n.label}: ${n.stage}`);
    });
    const report =
      target !== undefined
        ? await call(core, 'lease.destroy', { target })
        : await call(core, 'lease.destroyAll', {
            leases: !onlyOrphans,
            orphans: !values['no-orphans'],
          });
    if (values.json) process.stdout.write(JSON.stringify(report) + '\n');
    const failed = report.outcomes.filter((o) => !o.confirmed);
    const confirmed = report.outcomes.length - failed.length;
    if (report.outcomes.length === 0)
      info(
        target !== undefined
          ? `nothing to tear down: ${target} holds no live lease`
          : 'nothing to tear down: no live leases, no orphans',
      );
    else info(green(`${confirmed} lease(s) confirmed destroyed`));
    for (const f of failed)
      info(
        red(`NOT confirmed gone: ${f.provider} ${f.leaseId ?? f.label}: ${f.error ?? 'unknown'}`),
      );
    return failed.length === 0 ? EXIT.ok : EXIT.infrastructure;
  } finally {
    await core.close();
  }
}
