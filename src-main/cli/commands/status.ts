import { parseArgs } from 'node:util';
import {
  gpuIdleFiredText,
  gpuIdleRuleText,
  gpuText,
  type NodeView,
  type StatusView,
} from '../../contract';
import { TenderCore } from '../../core/tender-core';
import { formatBytes } from '../../jobs/workspace/human-units';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { interruptionText } from '../interruption-text';
import { ago, bold, info, red, table } from '../output';

export async function statusCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false } },
  });
  const core = TenderCore.openAny(ctx.coreOptions);
  if (!core) {
    if (values.json)
      process.stdout.write(
        JSON.stringify({ runs: [], leases: [], orphans: [], unreachable: [] }) + '\n',
      );
    else process.stdout.write(`nothing yet in ${ctx.home}\n`);
    return EXIT.ok;
  }
  try {
    if (core.isWriter) await collectEnded(core, values.json === true);
    const status = await call(core, 'status.get', {});
    if (values.json) process.stdout.write(JSON.stringify(status) + '\n');
    else
      process.stdout.write(
        statusText(
          status,
          core.isWriter ? null : 'read-only: another Tender process is the writer',
        ),
      );
    return EXIT.ok;
  } finally {
    await core.close();
  }
}

/** How long `tender status` waits for the outputs of runs whose job ended unattended. */
const COLLECT_WAIT_MS = 120_000;

/** Runs whose job ended while nobody was attached: their outputs are collected now and
 *  their nodes torn down (or kept) as their policy says, before the status is printed. */
async function collectEnded(core: TenderCore, quiet: boolean): Promise<void> {
  const { attached, stopped } = await call(core, 'run.collectDue', { all: false });
  for (const s of stopped)
    process.stderr.write(`${red(`run ${s.runId}: ${s.reason}`, process.stderr)}\n`);
  if (attached.length === 0) return;
  if (!quiet)
    info(
      `collecting the outputs of ${attached.join(', ')} (the job ended while nobody was attached)…`,
    );
  let timer!: NodeJS.Timeout;
  await Promise.race([
    Promise.all(attached.map((id) => core.waitRun(id).catch(() => undefined))),
    new Promise((r) => (timer = setTimeout(r, COLLECT_WAIT_MS))),
  ]);
  clearTimeout(timer);
  core.datastream.flush();
}

/** Orphans and leases that are still billing first, in red; then runs and their nodes. */
export function statusText(s: StatusView, note: string | null): string {
  const out = (line = '') => lines.push(line);
  const lines: string[] = [];
  const o = process.stdout;
  if (s.orphans.length > 0) {
    out(
      red(
        `${s.orphans.length} orphaned lease(s): carrying Tender's label, unknown to the ledger — \`tender down --orphans\` destroys them`,
        o,
      ),
    );
    for (const x of s.orphans) out(red(`  ${x.provider}  ${x.leaseId}  ${x.label}`, o));
    out();
  }
  for (const u of s.unreachable)
    out(red(`could not ask ${u.provider} for its leases: ${u.error}`, o));
  const lost = s.leases.filter((l) => l.state === 'lost');
  for (const l of lost) {
    out(
      red(
        `lease ${l.leaseId ?? l.label} (run ${l.runId ?? '-'}) was lost: ${l.reason ?? 'the provider no longer lists it'}`,
        o,
      ),
    );
  }
  if (lost.length > 0) out();
  // Interrupted leases (outbid, stopped, exited): billing their disk, doing nothing.
  const interrupted = s.leases.flatMap((l) => interruptionText(l) ?? []);
  for (const line of interrupted) out(red(line, o));
  if (interrupted.length > 0) out();
  // Nodes that protected the user's money by themselves: said loudly, once a day's worth.
  const selfDestroyed = s.leases.filter(
    (l) =>
      l.state === 'destroyed' &&
      l.reason?.startsWith('destroyed by its own dead-man switch') &&
      (l.destroyedAt ?? 0) > Date.now() - 86_400_000,
  );
  for (const l of selfDestroyed)
    out(`lease ${l.leaseId ?? l.label} (run ${l.runId ?? '-'}) was ${l.reason}`);
  if (selfDestroyed.length > 0) out();
  const live = s.leases.filter(
    (l) => l.state === 'requested' || l.state === 'created' || l.state === 'destroying',
  );
  if (live.length > 0) {
    const burn = live.reduce((sum, l) => sum + (l.pricePerHour ?? 0), 0);
    out(bold(`${live.length} live lease(s), billing $${burn.toFixed(3)}/h`, o));
    out(
      table([
        [
          'LEASE',
          'PROVIDER',
          'STATE',
          'RUN',
          'AGE',
          '$/H',
          'ACCRUED',
          'SELF-DESTROYS IN',
          'LAST ERROR',
        ],
        ...live.map((l) => [
          l.leaseId ?? l.label,
          l.provider,
          l.state === 'destroying'
            ? red(l.state, o)
            : l.interruption
              ? red(`${l.state}, ${l.interruption}`, o)
              : l.state,
          l.runId ?? '-',
          l.createdAt ? ago(l.createdAt) : '-',
          l.pricePerHour === null ? '-' : `$${l.pricePerHour.toFixed(3)}`,
          `$${l.accruedUsd.toFixed(4)}`,
          l.deadMan
            ? `${Math.max(0, Math.round((l.deadMan.firesAt - Date.now()) / 60_000))} min`
            : '-',
          l.lastError ?? '',
        ]),
      ]),
    );
    out();
    const warm = live.filter((l) => l.warm);
    if (warm.length > 0) {
      out(
        bold(
          `${warm.length} warm node(s): kept after their job, the next run with the same host key reuses them`,
          o,
        ),
      );
      out(
        table([
          ['LEASE', 'HOST KEY', 'IDLE ENDS IN', '$/H', 'SERVED RUNS'],
          ...warm.map((l) => [
            l.leaseId ?? l.label,
            l.warm!.hostKey,
            l.warm!.idleEndsAt === null
              ? 'no idle timeout'
              : `${Math.max(0, Math.round((l.warm!.idleEndsAt - Date.now()) / 60_000))} min`,
            l.pricePerHour === null ? '-' : `$${l.pricePerHour.toFixed(3)}`,
            (l.servedRuns ?? [l.runId ?? '-']).join(', '),
          ]),
        ]),
      );
      out();
    }
  } else {
    out('no live leases');
    out();
  }
  if (s.runs.length > 0) {
    const rows = [
      [
        'RUN',
        'JOB',
        'STATUS',
        'ORIGIN',
        'NODE',
        'STAGE',
        'PHASE',
        'EXIT',
        'GPU',
        'CACHE',
        'AGE',
        'COST',
      ],
    ];
    for (const r of s.runs.slice(0, 20)) {
      const status =
        r.detached && (r.status === 'running' || r.status === 'pending')
          ? `${r.status} (detached)`
          : r.status;
      r.nodes.forEach((n, i) => {
        rows.push([
          i === 0 ? r.id : '',
          i === 0 ? r.jobName : '',
          i === 0 ? status : '',
          // Who started it: cli, app, mcp:<client>; '-' for runs from before origins.
          i === 0 ? (r.origin ?? '-') : '',
          n.logicalId,
          n.stage,
          n.jobPhase ?? '-',
          n.exitCode === null ? '-' : String(n.exitCode),
          gpuCell(n, o),
          // TENDER_CACHE on the machine after its latest run (docs/host-setup.md)
          n.cacheBytes == null ? '-' : formatBytes(n.cacheBytes),
          i === 0 ? ago(r.createdAt) : '',
          i === 0 ? runCost(r) : '',
        ]);
      });
    }
    out(table(rows));
    for (const line of gpuIdleLines(s.runs.slice(0, 20), o)) out(line);
  }
  if (note) out(`(${note})`);
  return lines.join('\n') + '\n';
}

/** "GPU 87% · 31/80 GB", "stalled?" in red when the job is quiet on idle GPUs (never
 *  acted on), "(5m ago)" when the latest sample is old. */
function gpuCell(n: NodeView, o: NodeJS.WriteStream): string {
  if (!n.gpu) return '-';
  const text = gpuText(n.gpu);
  if (n.gpu.stalled) return `${text} ${red('stalled?', o)}`;
  return n.gpu.stale ? `${text} (${ago(n.gpu.at)} ago)` : text;
}

/** Each run's GPU idle rule, and where it fired what its node did. */
function gpuIdleLines(runs: StatusView['runs'], o: NodeJS.WriteStream): string[] {
  const lines: string[] = [];
  for (const r of runs) {
    const rule = r.policy?.gpuIdle;
    if (!rule) continue;
    lines.push(`${r.id}: ${gpuIdleRuleText(rule)}`);
    for (const n of r.nodes) {
      if (!n.gpuIdleFired) continue;
      const text = `  ${n.logicalId}: ${gpuIdleFiredText(n.gpuIdleFired)} (${ago(n.gpuIdleFired.at)} ago)`;
      lines.push(n.gpuIdleFired.did === 'notified' ? text : red(text, o));
    }
  }
  return lines;
}

function runCost(r: StatusView['runs'][number]): string {
  const spent = `$${r.cost.accruedUsd.toFixed(4)}`;
  if (r.cost.budgetUsd === null) return spent;
  const pct = Math.round((r.cost.budgetFraction ?? 0) * 100);
  return `${spent} (${pct}% of $${r.cost.budgetUsd.toFixed(2)}${r.cost.budgetWarning ? ', warning' : ''})`;
}
