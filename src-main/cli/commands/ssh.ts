import { parseArgs } from 'node:util';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { info } from '../output';

export const SSH_USAGE = 'tender ssh <runId> [--node N]';

/** An interactive shell in a node's workspace, through the same terminal the UI uses. */
export async function sshCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { node: { type: 'string' } },
  });
  if (positionals.length !== 1)
    throw new TenderError('bad_input', 'expected one run id', `usage: ${SSH_USAGE}`);
  const runId = positionals[0]!;
  const core = TenderCore.openAny(ctx.coreOptions);
  if (!core) throw new TenderError('not_found', `no run ${runId}`);
  try {
    const run = await call(core, 'run.get', { runId });
    const wanted =
      values.node === undefined
        ? run.nodes[0]?.logicalId
        : values.node.startsWith('node-')
          ? values.node
          : `node-${values.node}`;
    const node = run.nodes.find((n) => n.logicalId === wanted);
    if (!node)
      throw new TenderError(
        'bad_input',
        `run ${runId} has no node ${values.node}`,
        `nodes: ${run.nodes.map((n) => n.logicalId).join(', ')}`,
      );
    const size = {
      cols: process.stdout.columns || 120,
      rows: process.stdout.rows || 32,
      term: process.env.TERM || 'xterm-256color',
    };
    const { terminalId } = await call(core, 'terminal.open', { nodeId: node.id, ...size });
    info(`connected to ${node.logicalId} of ${runId} (exit the shell to leave)`);
    const done = new Promise<number | null>((resolve) => {
      core.bus.on('terminal.output', (e) => {
        if (e.terminalId === terminalId) process.stdout.write(Buffer.from(e.data, 'base64'));
      });
      core.bus.on('terminal.exit', (e) => {
        if (e.terminalId === terminalId) resolve(e.code);
      });
    });
    const raw = process.stdin.isTTY === true;
    if (raw) process.stdin.setRawMode(true);
    const onInput = (d: Buffer) =>
      void call(core, 'terminal.input', { terminalId, data: d.toString('base64') });
    process.stdin.on('data', onInput);
    const onResize = () =>
      void call(core, 'terminal.resize', {
        terminalId,
        cols: process.stdout.columns,
        rows: process.stdout.rows,
      });
    process.stdout.on('resize', onResize);
    const code = await done;
    process.stdin.off('data', onInput);
    process.stdout.off('resize', onResize);
    if (raw) process.stdin.setRawMode(false);
    process.stdin.destroy();
    return code === 0 || code === null ? EXIT.ok : EXIT.jobFailed;
  } finally {
    await core.close();
  }
}
