import { parseArgs } from 'node:util';
import type { CostReport } from '../../contract';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { bold, red, table } from '../output';
import { durationFlag } from './flags';

export const COST_USAGE = 'tender cost [--since 7d] [--json]';

/** What was spent: per day, per run, per lease, and what bills right now. */
export async function costCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      since: { type: 'string', default: '7d' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length > 0)
    throw new TenderError('bad_input', `unexpected "${positionals[0]}"`, `usage: ${COST_USAGE}`);
  const sinceMs = durationFlag('--since', values.since, false)!;
  const core = TenderCore.openAny({ ...ctx.coreOptions, reconcile: false });
  if (!core) {
    process.stdout.write(values.json ? '{}\n' : `nothing yet in ${ctx.home}\n`);
    return EXIT.ok;
  }
  try {
    const report = await call(core, 'cost.report', { sinceMs });
    process.stdout.write(
      values.json ? JSON.stringify(report) + '\n' : render(report, values.since),
    );
    return EXIT.ok;
  } finally {
    await core.close();
  }
}

const usd = (n: number) => `$${n.toFixed(n < 10 ? 4 : 2)}`;

function render(r: CostReport, since: string): string {
  const out: string[] = [];
  out.push(bold(`spent in the last ${since}: ${usd(r.totalUsd)}`));
  out.push(
    r.billing > 0
      ? red(
          `billing now: ${r.billing} lease${r.billing > 1 ? 's' : ''}, ${usd(r.burnUsdPerHour)}/h`,
        )
      : 'billing now: nothing',
  );
  const days = r.days.filter((d) => d.usd > 0);
  if (days.length > 0) {
    out.push('', bold('per day (UTC)'));
    out.push(table([['DAY', 'USD'], ...days.map((d) => [d.day, usd(d.usd)])]).trimEnd());
  }
  if (r.runs.length > 0) {
    out.push('', bold('per run'));
    out.push(
      table([
        ['RUN', 'JOB', 'LEASES', 'USD', 'BUDGET'],
        ...r.runs.map((x) => [
          x.runId,
          x.jobName,
          String(x.leases),
          usd(x.usd),
          x.budgetUsd === null
            ? '-'
            : `${usd(x.budgetUsd)} (${Math.round((x.usd / x.budgetUsd) * 100)}%)`,
        ]),
      ]).trimEnd(),
    );
  }
  if (r.leases.length > 0) {
    out.push('', bold('per lease'));
    out.push(
      table([
        ['LEASE', 'PROVIDER', 'STATE', '$/H', 'USD', 'WHY IT ENDED'],
        ...r.leases.map((l) => [
          l.leaseId ?? l.label,
          l.provider,
          l.state,
          l.pricePerHour === null ? '-' : usd(l.pricePerHour),
          usd(l.usd),
          l.reason ?? '',
        ]),
      ]).trimEnd(),
    );
  }
  return out.join('\n') + '\n';
}
