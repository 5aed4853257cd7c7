import { parseArgs } from 'node:util';
import { TenderError } from '../../base/tender-error';
import { TenderCore } from '../../core/tender-core';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { dim, green, info, red } from '../output';

export const NODE_USAGE =
  'tender node setup <leaseId|nodeId> "<command>" [--refresh-capabilities] [--name N] [--no-wait] [--json]';

/** `tender node setup`: appends a command to a live node's host-setup FIFO; by default
 *  waits for it, prints its log section and exits with 1 when it did not exit 0. */
export async function nodeCommand(argv: string[], ctx: CliContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'setup') {
    throw new TenderError(
      'bad_input',
      sub ? `unknown node command "${sub}"` : 'say what to do with the node',
      `usage: ${NODE_USAGE}`,
    );
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      'refresh-capabilities': { type: 'boolean', default: false },
      name: { type: 'string' },
      'no-wait': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const [target, script] = positionals;
  if (positionals.length !== 2 || !target || !script) {
    throw new TenderError(
      'bad_input',
      'name the node and the command, the command in quotes',
      `usage: ${NODE_USAGE}`,
    );
  }
  const core = TenderCore.openAny(ctx.coreOptions);
  if (!core) {
    throw new TenderError(
      'not_found',
      `no lease or node ${target}: nothing yet in ${ctx.home}`,
      'keep a node after its job with `tender run --keep`, then append to it',
    );
  }
  try {
    const wait = !values['no-wait'];
    if (wait) info(dim(`appending to ${target} and waiting for it to run…`));
    const r = await call(core, 'node.setup', {
      target,
      script,
      ...(values.name ? { name: values.name } : {}),
      refreshCapabilities: values['refresh-capabilities'],
      wait,
    });
    if (values.json) process.stdout.write(JSON.stringify(r) + '\n');
    const where = r.leaseId ?? r.nodeId;
    if (!wait) {
      const ahead = r.position === 0 ? 'it runs now' : `${r.position} ahead of it`;
      info(`appended host_setup[${r.id}] to ${where} (${ahead}); \`tender logs\` shows its output`);
      return EXIT.ok;
    }
    if (!values.json) {
      for (const l of r.lines) {
        if (l.stream === 'info') info(dim(`» ${l.line}`));
        else (l.stream === 'stderr' ? process.stderr : process.stdout).write(`${l.line}\n`);
      }
    }
    if (r.code === 0) {
      info(green(`host_setup[${r.id}] on ${where} exited 0`));
      return EXIT.ok;
    }
    const how = r.signal
      ? `was killed by ${r.signal}`
      : r.code === null
        ? 'ended with its exit code unknown'
        : `exited with code ${r.code}`;
    info(red(`host_setup[${r.id}] on ${where} ${how}; the node stays up, the entry is done`));
    return EXIT.jobFailed;
  } finally {
    await core.close();
  }
}
