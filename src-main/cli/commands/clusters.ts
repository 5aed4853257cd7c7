import { parseArgs } from 'node:util';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { ClusterInput } from '../../contract';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { info, table } from '../output';

export const CLUSTERS_USAGE =
  'tender clusters list [--json] | add <name> <user@login-host[:port]> [--identity-file F] [--partition P] [--account A] [--qos Q] [--gpu-hour-usd X] | remove <name>';

/** Slurm clusters a run can submit to (`--provider slurm --cluster <name>`), stored in
 *  clusters.toml (docs/slurm.md). */
export async function clustersCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      'identity-file': { type: 'string' },
      partition: { type: 'string' },
      account: { type: 'string' },
      qos: { type: 'string' },
      'gpu-hour-usd': { type: 'string' },
    },
  });
  const [sub, ...rest] = positionals;
  if (!sub || !['list', 'add', 'remove'].includes(sub))
    throw new TenderError(
      'bad_input',
      sub ? `unknown clusters command "${sub}"` : 'say what to do with clusters',
      `usage: ${CLUSTERS_USAGE}`,
    );
  const input = sub === 'add' ? parseAdd(rest, values) : null;
  if (sub === 'remove' && rest.length !== 1)
    throw new TenderError('bad_input', 'expected one cluster name', `usage: ${CLUSTERS_USAGE}`);
  const core =
    sub === 'list' ? TenderCore.openAny(ctx.coreOptions) : TenderCore.open(ctx.coreOptions);
  if (!core) {
    process.stdout.write(
      values.json ? '[]\n' : 'no clusters yet: `tender clusters add <name> user@login-host`\n',
    );
    return EXIT.ok;
  }
  try {
    if (sub === 'list') {
      const clusters = await call(core, 'clusters.list', {});
      if (values.json) process.stdout.write(`${JSON.stringify(clusters)}\n`);
      else if (clusters.length === 0)
        process.stdout.write('no clusters yet: `tender clusters add <name> user@login-host`\n');
      else
        process.stdout.write(
          `${table([
            ['NAME', 'LOGIN', 'PARTITION', 'ACCOUNT', 'QOS', 'KEY'],
            ...clusters.map((c) => [
              c.name,
              `${c.user}@${c.host}:${c.port}`,
              c.partition ?? '(default)',
              c.account ?? '(default)',
              c.qos ?? '(default)',
              c.identityFile ?? '(Tender key)',
            ]),
          ])}\n`,
        );
      return EXIT.ok;
    }
    if (sub === 'add') {
      const c = await call(core, 'clusters.add', input!);
      info(
        `added ${c.name}: ${c.user}@${c.host}:${c.port}${c.partition ? `, partition ${c.partition}` : ''}`,
      );
      info(`run on it: tender run job.toml --provider slurm --cluster ${c.name}`);
      if (!c.identityFile)
        info(
          `its login node is reached with Tender's key: add ${ctx.home}/keys/id_ed25519.pub to ~/.ssh/authorized_keys there`,
        );
      return EXIT.ok;
    }
    const r = await call(core, 'clusters.remove', { name: rest[0]! });
    info(r.removed ? `removed ${rest[0]}` : `no cluster named ${rest[0]}`);
    return r.removed ? EXIT.ok : EXIT.badInput;
  } finally {
    await core.close();
  }
}

function parseAdd(rest: string[], v: Record<string, string | boolean | undefined>) {
  const [name, target] = rest;
  const m = target ? /^([^@\s]+)@([^:\s]+|\[[^\]]+\])(?::(\d+))?$/.exec(target) : null;
  if (!name || !m || rest.length !== 2)
    throw new TenderError(
      'bad_input',
      'expected a name and user@login-host[:port]',
      `usage: ${CLUSTERS_USAGE}`,
    );
  const text = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const price = text('gpu-hour-usd');
  const candidate = {
    name,
    user: m[1]!,
    host: m[2]!.replace(/^\[|\]$/g, ''),
    port: m[3] ? Number(m[3]) : 22,
    ...(text('identity-file') ? { identityFile: text('identity-file') } : {}),
    ...(text('partition') ? { partition: text('partition') } : {}),
    ...(text('account') ? { account: text('account') } : {}),
    ...(text('qos') ? { qos: text('qos') } : {}),
    ...(price !== undefined ? { gpuHourUsd: Number(price.replace(/^\$/, '')) } : {}),
  };
  const parsed = ClusterInput.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TenderError(
      'bad_input',
      `${issue.path.join('.') || 'cluster'}: ${issue.message}`,
      `usage: ${CLUSTERS_USAGE}`,
    );
  }
  return candidate;
}
