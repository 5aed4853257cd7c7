import { parseArgs } from 'node:util';
import { TenderError } from '../../base/tender-error';
import { Ledger } from '../../ledger/ledger';
import {
  includeLine,
  installInclude,
  isIncludeInstalled,
  uninstallInclude,
  userSshConfigPath,
} from '../../services/ssh-config/ssh-include';
import { lookSshConfig, sshConfigPaths } from '../../services/ssh-config/ssh-config-store';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { info } from '../output';

export const SSH_CONFIG_USAGE = 'tender ssh-config [--install | --uninstall]';

/** Prints the ssh entries of every live node (rebuilt from the ledger now); `--install`
 *  adds one Include line to ~/.ssh/config so that `ssh tender-<run>` works, `--uninstall`
 *  removes it. */
export async function sshConfigCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      install: { type: 'boolean', default: false },
      uninstall: { type: 'boolean', default: false },
    },
  });
  if (values.install && values.uninstall)
    throw new TenderError('bad_input', '--install and --uninstall together', SSH_CONFIG_USAGE);
  const paths = sshConfigPaths(ctx.home);
  const text = lookSshConfig(ctx.home, (home) => Ledger.openReader(home));
  const userConfig = userSshConfigPath();
  if (values.uninstall) {
    const r = uninstallInclude(paths.config, userConfig);
    info(
      r.changed
        ? `removed \`${includeLine(paths.config)}\` from ${r.path}`
        : `${r.path} had no Tender Include line`,
    );
    return EXIT.ok;
  }
  if (values.install) {
    const r = installInclude(paths.config, userConfig);
    info(
      r.changed
        ? `added \`${includeLine(paths.config)}\` as the first line of ${r.path}${r.created ? ' (created, mode 0600)' : ''}; \`tender ssh-config --uninstall\` removes it`
        : `${r.path} already includes ${paths.config}`,
    );
    return EXIT.ok;
  }
  process.stdout.write(text.config);
  if (!isIncludeInstalled(paths.config, userConfig))
    info(
      `your ssh does not read these yet: \`tender ssh-config --install\` adds \`${includeLine(paths.config)}\` to ${userConfig}`,
    );
  return EXIT.ok;
}
