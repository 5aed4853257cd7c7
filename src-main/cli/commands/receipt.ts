import { parseArgs } from 'node:util';
import type { Receipt } from '../../contract';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { formatBytes } from '../../jobs/workspace/human-units';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { bold, dim } from '../output';

export const RECEIPT_USAGE = 'tender receipt <runId> [--node N] [--job J] [--json]';

/** What a finished job ran, on what, from which inputs, to which outputs. */
export async function receiptCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      node: { type: 'string' },
      job: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [runId, extra] = positionals;
  if (!runId || extra !== undefined)
    throw new TenderError('bad_input', 'give one run id', `usage: ${RECEIPT_USAGE}`);
  const core = TenderCore.openAny({ ...ctx.coreOptions, reconcile: false });
  if (!core)
    throw new TenderError('not_found', `no run ${runId}`, '`tender status` lists the runs');
  try {
    const receipts = await call(core, 'run.receipts', {
      runId,
      ...(values.node ? { nodeName: values.node } : {}),
      ...(values.job ? { cellId: values.job } : {}),
    });
    if (receipts.length === 0)
      throw new TenderError(
        'not_found',
        `run ${runId} has no receipt${values.node ? ` for ${values.node}` : ''}${values.job ? ` for ${values.job}` : ''} yet`,
        'a receipt is written when a job ends on its node',
      );
    process.stdout.write(
      values.json
        ? `${JSON.stringify(receipts.length === 1 ? receipts[0] : receipts, null, 2)}\n`
        : receipts.map(render).join('\n'),
    );
    return EXIT.ok;
  } finally {
    await core.close();
  }
}

function render(r: Receipt): string {
  const lines = [
    bold(
      `${r.runId} ${r.cell ? `${r.cell.id} on ` : ''}${r.node}: ${r.status}${r.exitCode === null ? '' : ` (exit ${r.exitCode})`}`,
    ),
    ...(r.cache?.hit
      ? [
          `  cache      hit: the outputs of ${r.cache.hit.jobId} (run ${r.cache.hit.runId}), not run again`,
        ]
      : []),
    `  job        ${r.job.name} (${r.jobId}), attempt ${r.attempt + 1}`,
    `  run        ${r.job.run}`,
    ...(r.job.setup
      ? [
          `  setup      ${r.job.setup}${r.job.setupFingerprint.length ? ` [${r.job.setupFingerprint.join(', ')}]` : ''}`,
        ]
      : []),
    ...(Object.keys(r.job.params).length
      ? [
          `  params     ${Object.entries(r.job.params)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`,
        ]
      : []),
    ...(r.job.env.length
      ? [
          `  env        ${r.job.env.map((e) => (e.secret ? `${e.name} (secret)` : e.name)).join(', ')}`,
        ]
      : []),
    `  workspace  ${r.workspace.manifest ? `${r.workspace.manifest.slice(0, 16)}… (${r.workspace.files} files)` : 'none'}`,
    `  placement  ${r.placement.provider} ${r.placement.leaseId ?? ''} ${r.placement.hostKey}${r.placement.image ? ` ${r.placement.image}` : ''}`,
    `  agent      ${r.placement.agentVersion ?? '?'}; ${capsLine(r.placement.capabilities)}`,
    `  outputs    ${r.outputs.files.length} files, ${formatBytes(r.outputs.files.reduce((n, f) => n + f.size, 0))}${r.outputs.missing.length ? `; missing ${r.outputs.missing.join(', ')}` : ''}`,
    ...r.outputs.files.map((f) => dim(`    ${f.sha256.slice(0, 16)}  ${f.path}`)),
    `  took       ${Math.round((r.timings.endedAt - r.timings.startedAt) / 1000)} s, $${r.costUsd.toFixed(4)}; tender ${r.tenderVersion}`,
  ];
  return `${lines.join('\n')}\n`;
}

function capsLine(caps: Record<string, string | number>): string {
  const pick = ['os', 'arch', 'gpu.count', 'gpu.model', 'gpu.cuda', 'cpu.cores'];
  return pick
    .filter((k) => caps[k] !== undefined)
    .map((k) => `${k}=${caps[k]}`)
    .join(' ');
}
