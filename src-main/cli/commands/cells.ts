import { parseArgs } from 'node:util';
import type { CellView } from '../../contract';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { bold, dim, green, red } from '../output';

export const CELLS_USAGE = 'tender cells <runId> [--json]';
export const CANCEL_USAGE = 'tender cancel <runId> [--job J]';

/** A sweep's cells: values, status, node, exit code, how long each took. */
export async function cellsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const [runId, extra] = positionals;
  if (!runId || extra !== undefined)
    throw new TenderError('bad_input', 'give one run id', `usage: ${CELLS_USAGE}`);
  const core = TenderCore.openAny({ ...ctx.coreOptions, reconcile: false });
  if (!core)
    throw new TenderError('not_found', `no run ${runId}`, '`tender status` lists the runs');
  try {
    const cells = await call(core, 'run.cells', { runId });
    if (cells.length === 0)
      throw new TenderError(
        'bad_input',
        `run ${runId} is no sweep: it has no cells`,
        `\`tender receipt ${runId}\` shows what it ran`,
      );
    process.stdout.write(
      values.json ? `${JSON.stringify(cells, null, 2)}\n` : renderCells(cells, Date.now()),
    );
    return EXIT.ok;
  } finally {
    await core.close();
  }
}

/** Cancels a run (what Ctrl-C's "cancel" does) or, with `--job`, one cell of a sweep. */
export async function cancelCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { job: { type: 'string' } },
  });
  const [runId, extra] = positionals;
  if (!runId || extra !== undefined)
    throw new TenderError('bad_input', 'give one run id', `usage: ${CANCEL_USAGE}`);
  const core = TenderCore.open(ctx.coreOptions);
  try {
    if (values.job !== undefined) {
      const cell = await call(core, 'run.cancelCell', { runId, cellId: values.job });
      process.stderr.write(`${cell.id} of ${runId}: ${cell.status}\n`);
      return EXIT.ok;
    }
    await call(core, 'run.cancel', { runId });
    process.stderr.write(
      `cancelling ${runId}: stopping the job, collecting outputs, tearing down…\n`,
    );
    await core.waitRun(runId);
    const v = await call(core, 'run.get', { runId });
    process.stderr.write(
      `run ${runId} ${v.status}${v.failedReason ? `: ${v.failedReason}` : ''}\n`,
    );
    return EXIT.ok;
  } finally {
    await core.close();
  }
}

export function renderCells(cells: CellView[], now: number): string {
  const names = [...new Set(cells.flatMap((c) => Object.keys(c.values)))];
  const header = ['cell', ...names, 'status', 'node', 'exit', 'took', ''];
  const rows = cells.map((c) => [
    c.id,
    ...names.map((n) => c.values[n] ?? '–'),
    c.status,
    c.node ?? '–',
    c.exitCode === null ? '–' : String(c.exitCode),
    took(c, now),
    [
      c.tries > 1 ? `${c.tries} starts` : '',
      c.cacheHit ? `cache hit from ${c.cacheHit.runId}.${c.cacheHit.cellId}` : '',
      c.reason ?? '',
    ]
      .filter(Boolean)
      .join('; '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cols: string[]) =>
    cols
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const colour = (c: CellView, text: string) =>
    c.status === 'completed'
      ? green(text)
      : c.status === 'failed'
        ? red(text)
        : c.status === 'queued'
          ? dim(text)
          : text;
  return `${[bold(line(header)), ...rows.map((r, i) => colour(cells[i]!, line(r)))].join('\n')}\n`;
}

function took(c: CellView, now: number): string {
  if (c.startedAt === null) return '–';
  const ms = (c.endedAt ?? now) - c.startedAt;
  return ms < 10_000
    ? `${(ms / 1000).toFixed(1)} s`
    : ms < 3_600_000
      ? `${Math.round(ms / 1000)} s`
      : `${(ms / 3_600_000).toFixed(1)} h`;
}
