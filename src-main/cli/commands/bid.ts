import { parseArgs } from 'node:util';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { interruptionText } from '../interruption-text';
import { green, info, red } from '../output';
import { positiveNumber } from './flags';

export const BID_USAGE = 'tender bid <leaseId> <$/h> [--json]';

/** Sets the bid of an interruptible lease ($/h for the machine, storage not included): an
 *  outbid lease runs again once its bid meets the minimum. */
export async function bidCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const [leaseId, raw] = positionals;
  if (positionals.length !== 2 || !leaseId || !raw)
    throw new TenderError('bad_input', 'name one lease and the bid', `usage: ${BID_USAGE}`);
  const bid = positiveNumber('the bid', raw.replace(/^\$/, '').replace(/\/h$/, ''));
  const core = TenderCore.open(ctx.coreOptions);
  try {
    const lease = await call(core, 'lease.bid', { leaseId, bid });
    if (values.json) process.stdout.write(JSON.stringify(lease) + '\n');
    const said = `lease ${lease.leaseId ?? lease.label}: bid $${bid.toFixed(3)}/h`;
    const still = interruptionText(lease);
    if (still) info(red(`${said}; ${still}`));
    else info(green(`${said}; it runs`));
    return EXIT.ok;
  } finally {
    await core.close();
  }
}
