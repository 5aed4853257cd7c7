import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeRecord } from '../../ledger/node-record';
import type { LeaseRow } from '../../ledger/rows';
import { expandHome } from '../../providers/ssh/hosts-file';
import { writeFileAtomic } from './atomic-file';
import { buildSshConfig, type SshConfigNode, type SshConfigText } from './ssh-config-entries';

/** What the ssh config is built from (the Ledger, read-only use). */
export interface SshConfigLedger {
  unfinishedNodes(): NodeRecord[];
  getLease(label: string): Pick<LeaseRow, 'state'> | undefined;
  getHostKey(scope: string): { keyType: string; publicKey?: string | null } | undefined;
}

export function sshConfigPaths(home: string) {
  const dir = join(home, 'ssh');
  return { dir, config: join(dir, 'config'), knownHosts: join(dir, 'known_hosts') };
}

/** A lease whose end the ledger has seen: its node gets no entry even before the node's
 *  own record catches up. */
const ENDED_LEASE_STATES = new Set(['destroyed', 'lost', 'not_created']);

/** The nodes that hold a live lease, with the pin of each one's endpoint. */
export function sshConfigNodes(ledger: SshConfigLedger): SshConfigNode[] {
  const nodes: SshConfigNode[] = [];
  for (const n of ledger.unfinishedNodes()) {
    if (n.lease === null) continue;
    const lease = ledger.getLease(n.label);
    if (lease && ENDED_LEASE_STATES.has(lease.state)) continue;
    const ep = n.connection;
    const pin = ep?.kind === 'ssh' ? ledger.getHostKey(ep.hostKeyScope) : undefined;
    nodes.push({
      runId: n.runId,
      logicalId: n.logicalId,
      endpoint: ep,
      pin: pin ? { keyType: pin.keyType, publicKey: pin.publicKey ?? null } : null,
    });
  }
  return nodes;
}

/** The entries for the ledger as it is now. */
export function renderSshConfig(home: string, ledger: SshConfigLedger): SshConfigText {
  const paths = sshConfigPaths(home);
  return buildSshConfig(sshConfigNodes(ledger), {
    knownHostsPath: paths.knownHosts,
    identityFile: (authRef) =>
      authRef === 'tender' ? join(home, 'keys', 'id_ed25519') : expandHome(authRef),
  });
}

/** Rebuilds `<home>/ssh/config` and `<home>/ssh/known_hosts` from the ledger (folder 0700,
 *  files 0600, each written atomically; known_hosts first, so an entry never names a key
 *  that is not there yet). */
export function writeSshConfig(home: string, ledger: SshConfigLedger): SshConfigText {
  const text = renderSshConfig(home, ledger);
  const paths = sshConfigPaths(home);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  chmodSync(paths.dir, 0o700);
  writeFileAtomic(paths.knownHosts, text.knownHosts, 0o600);
  writeFileAtomic(paths.config, text.config, 0o600);
  return text;
}

/** Rebuilds the entries from the ledger on disk (read-only: works beside a running app);
 *  no ledger yet writes an empty config. */
export function lookSshConfig(home: string, openReader: (home: string) => SshConfigReader | null) {
  const ledger = openReader(home);
  const empty: SshConfigLedger = {
    unfinishedNodes: () => [],
    getLease: () => undefined,
    getHostKey: () => undefined,
  };
  try {
    return writeSshConfig(home, ledger ?? empty);
  } finally {
    ledger?.close();
  }
}

export type SshConfigReader = SshConfigLedger & { close(): void };
