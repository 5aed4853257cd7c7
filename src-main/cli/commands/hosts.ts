import { parseArgs } from 'node:util';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { info, table } from '../output';

export const HOSTS_USAGE =
  'tender hosts list [--json] | add <name> <user@host[:port]> [--identity-file F] | remove <name> | forget-key <name>';

/** Machines you already have, for `--provider ssh --hosts …` (stored in hosts.toml). */
export async function hostsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, 'identity-file': { type: 'string' } },
  });
  const [sub, ...rest] = positionals;
  if (!sub || !['list', 'add', 'remove', 'forget-key'].includes(sub)) {
    throw new TenderError(
      'bad_input',
      sub ? `unknown hosts command "${sub}"` : 'say what to do with hosts',
      `usage: ${HOSTS_USAGE}`,
    );
  }
  const input = sub === 'add' ? parseAdd(rest, values['identity-file']) : null;
  if ((sub === 'remove' || sub === 'forget-key') && rest.length !== 1) {
    throw new TenderError('bad_input', `expected one host name`, `usage: ${HOSTS_USAGE}`);
  }
  const core =
    sub === 'list' ? TenderCore.openAny(ctx.coreOptions) : TenderCore.open(ctx.coreOptions);
  if (!core) {
    process.stdout.write(
      values.json ? '[]\n' : 'no hosts yet: `tender hosts add <name> user@host`\n',
    );
    return EXIT.ok;
  }
  try {
    switch (sub) {
      case 'list': {
        const hosts = await call(core, 'hosts.list', {});
        if (values.json) process.stdout.write(JSON.stringify(hosts) + '\n');
        else if (hosts.length === 0)
          process.stdout.write('no hosts yet: `tender hosts add <name> user@host`\n');
        else {
          const rows = hosts.map((h) => [
            h.name,
            `${h.user}@${h.host}:${h.port}`,
            h.identityFile ?? '(Tender key)',
            h.claimedBy ?? '-',
          ]);
          process.stdout.write(table([['NAME', 'ADDRESS', 'KEY', 'IN USE BY'], ...rows]) + '\n');
        }
        return EXIT.ok;
      }
      case 'add': {
        const h = await call(core, 'hosts.add', input!);
        info(`added ${h.name}: ${h.user}@${h.host}:${h.port}`);
        if (!h.identityFile)
          info(
            `it will be reached with Tender's key: add ${ctx.home}/keys/id_ed25519.pub to its ~/.ssh/authorized_keys`,
          );
        return EXIT.ok;
      }
      case 'remove': {
        const r = await call(core, 'hosts.remove', { name: rest[0]! });
        info(r.removed ? `removed ${rest[0]}` : `no host named ${rest[0]}`);
        return r.removed ? EXIT.ok : EXIT.badInput;
      }
      default: {
        const r = await call(core, 'hosts.forgetKey', { name: rest[0]! });
        info(
          r.forgotten
            ? `forgot the pinned host key of ${rest[0]}; the next connection pins the key it offers`
            : `no key was pinned for ${rest[0]}`,
        );
        return EXIT.ok;
      }
    }
  } finally {
    await core.close();
  }
}

function parseAdd(rest: string[], identityFile: string | undefined) {
  const [name, target] = rest;
  const m = target ? /^([^@\s]+)@([^:\s]+|\[[^\]]+\])(?::(\d+))?$/.exec(target) : null;
  if (!name || !m || rest.length !== 2) {
    throw new TenderError(
      'bad_input',
      'expected a name and user@host[:port]',
      `usage: ${HOSTS_USAGE}`,
    );
  }
  return {
    name,
    user: m[1]!,
    host: m[2]!.replace(/^\[|\]$/g, ''),
    port: m[3] ? Number(m[3]) : 22,
    ...(identityFile ? { identityFile } : {}),
  };
}
