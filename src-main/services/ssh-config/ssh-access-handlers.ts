import type { Handlers, SshIncludeView } from '../../contract';
import type { NodeRecord } from '../../ledger/node-record';
import { nodeAccess, runAccess } from './ssh-access';
import { renderSshConfig, sshConfigPaths, type SshConfigLedger } from './ssh-config-store';
import {
  includeLine,
  installInclude,
  isIncludeInstalled,
  uninstallInclude,
  userSshConfigPath,
} from './ssh-include';

export interface SshAccessDeps {
  home: string;
  ledger: SshConfigLedger & { nodesOfRun(runId: string): NodeRecord[] };
  /** The user's ~/.ssh/config (tests: one in a temporary HOME). */
  userConfig?: () => string;
}

type SshAccessHandlers = Pick<
  Handlers,
  'sshConfig.get' | 'sshConfig.install' | 'sshConfig.uninstall' | 'node.sshAccess' | 'run.sshAccess'
>;

/** The app's side of `tender ssh-config` and `tender open`: the same Include code as the
 *  CLI, and each node's (and run's) alias and folder from the entries the ledger gives now. */
export function sshAccessHandlers(d: SshAccessDeps): SshAccessHandlers {
  const ours = sshConfigPaths(d.home).config;
  const userConfig = d.userConfig ?? (() => userSshConfigPath());
  const view = (): SshIncludeView => ({
    installed: isIncludeInstalled(ours, userConfig()),
    line: includeLine(ours),
    userConfig: userConfig(),
  });
  return {
    'sshConfig.get': async () => view(),
    'sshConfig.install': async () => {
      installInclude(ours, userConfig());
      return view();
    },
    'sshConfig.uninstall': async () => {
      uninstallInclude(ours, userConfig());
      return view();
    },
    'node.sshAccess': async ({ runId, logicalId }) => {
      const { config } = renderSshConfig(d.home, d.ledger);
      const a = nodeAccess(config, runId, d.ledger.nodesOfRun(runId), logicalId);
      return { ...a, include: view() };
    },
    'run.sshAccess': async ({ runId }) => {
      const { config } = renderSshConfig(d.home, d.ledger);
      return { ...runAccess(config, runId, d.ledger.nodesOfRun(runId)), include: view() };
    },
  };
}
