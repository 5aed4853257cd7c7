import { parseArgs } from 'node:util';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { green, info, red } from '../output';

export const DOWN_USAGE =
  'tender down --all [--no-orphans] [--json] | tender down --orphans [--json]';

export async function downCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      all: { type: 'boolean', default: false },
      orphans: { type: 'boolean' },
      'no-orphans': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const onlyOrphans = values.orphans === true && !values.all;
  if (!values.all && !onlyOrphans) {
    throw new TenderError('bad_input', 'say what to tear down', `usage: ${DOWN_USAGE}`);
  }
  const core = TenderCore.open(ctx.coreOptions);
  try {
    core.bus.on('node.changed', (n) => {
      if (n.stage === 'destroying' || n.stage === 'destroyed')
        info(`${n.leaseId ?? n.label}: ${n.stage}`);
    });
    const report = await call(core, 'lease.destroyAll', {
      leases: !onlyOrphans,
      orphans: !values['no-orphans'],
    });
    if (values.json) process.stdout.write(JSON.stringify(report) + '\n');
    const failed = report.outcomes.filter((o) => !o.confirmed);
    const confirmed = report.outcomes.length - failed.length;
    if (report.outcomes.length === 0) info('nothing to tear down: no live leases, no orphans');
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
