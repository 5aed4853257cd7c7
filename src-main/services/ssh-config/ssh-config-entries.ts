import { allocationOf } from '../../providers/allocation';
import type { NodeEndpoint } from '../../providers/provider';

/** One node as the ledger knows it, for the user's own ssh (no I/O here). */
export interface SshConfigNode {
  runId: string;
  logicalId: string;
  endpoint: NodeEndpoint | null;
  /** The key pinned for the endpoint's host-key scope; `publicKey` null for a pin made
   *  before Tender kept key blobs. */
  pin: { keyType: string; publicKey: string | null } | null;
}

export interface SshConfigFiles {
  /** Tender's known_hosts, named by every entry's UserKnownHostsFile. */
  knownHostsPath: string;
  /** The private key file an endpoint's `authRef` names (`tender`: Tender's own key). */
  identityFile(authRef: string): string;
}

export interface SshConfigText {
  config: string;
  knownHosts: string;
}

const HEADER = [
  '# Written by Tender from its ledger: one entry per node while its lease lives.',
  '# Rebuilt at every look; edits here are lost. `tender ssh-config` prints it.',
];

/** `tender-<runId>-<node>`: what the user types after `ssh`. */
export function nodeAlias(runId: string, logicalId: string): string {
  return `tender-${safe(runId)}-${safe(logicalId)}`;
}

/** `tender-<runId>`: the run's first node. */
export function runAlias(runId: string): string {
  return `tender-${safe(runId)}`;
}

/** The name a pinned key is filed under in Tender's known_hosts (HostKeyAlias): the pin's
 *  scope, so a key pinned for a host serves every run on it and one pinned for a lease
 *  serves that lease alone. */
export function hostKeyAlias(scope: string): string {
  return `tender-${safe(scope)}`;
}

/** The ssh config and known_hosts text for these nodes. Nodes that the user's ssh cannot
 *  reach by themselves get a comment saying why, never an entry that fails. */
export function buildSshConfig(nodes: SshConfigNode[], files: SshConfigFiles): SshConfigText {
  const blocks: string[] = [HEADER.join('\n')];
  const known = new Map<string, string>();
  const hasRunAlias = new Set<string>();
  for (const node of [...nodes].sort(byRunThenNode)) {
    const alias = nodeAlias(node.runId, node.logicalId);
    const why = unreachable(node);
    if (why !== null) {
      blocks.push(`# ${alias}: ${why}`);
      continue;
    }
    const ep = node.endpoint as Extract<NodeEndpoint, { kind: 'ssh' }>;
    const keyAlias = hostKeyAlias(ep.hostKeyScope);
    known.set(keyAlias, `${keyAlias} ${node.pin!.keyType} ${node.pin!.publicKey}`);
    const names = [alias];
    if (!hasRunAlias.has(node.runId)) {
      hasRunAlias.add(node.runId);
      names.push(runAlias(node.runId));
    }
    blocks.push(
      [
        `Host ${names.join(' ')}`,
        `  HostName ${ep.host}`,
        `  Port ${ep.port}`,
        `  User ${ep.user}`,
        `  IdentityFile ${quoted(files.identityFile(ep.authRef))}`,
        '  IdentitiesOnly yes',
        `  HostKeyAlias ${keyAlias}`,
        `  UserKnownHostsFile ${quoted(files.knownHostsPath)}`,
        '  StrictHostKeyChecking yes',
        // Tender's file holds the pins alone: ssh must not add keys or addresses to it.
        '  UpdateHostKeys no',
        '  CheckHostIP no',
      ].join('\n'),
    );
  }
  const knownHosts = [...known.values()].map((l) => `${l}\n`).join('');
  return { config: `${blocks.join('\n\n')}\n`, knownHosts };
}

/** Why the user's own ssh cannot reach this node by an entry, or null when it can. */
function unreachable(node: SshConfigNode): string | null {
  const ep = node.endpoint;
  if (ep === null)
    return 'no address yet (its lease is being created); it gets an entry once known';
  const never = neverAnEntry(ep, node.runId, node.logicalId);
  if (never !== null) return never;
  if (ep.kind !== 'ssh') return null; // unreachable: a local endpoint was answered above
  const bad = unsafeField(ep, node.pin);
  if (bad !== null)
    return `its ${bad} has characters an ssh config line could misread; no entry is written for it`;
  if (node.pin === null)
    return `no host key pinned yet; it gets an entry once Tender has connected to it`;
  if (!node.pin.publicKey)
    return (
      'its host key was pinned before Tender kept whole keys (only the fingerprint), so your ssh could not ' +
      `check it: \`tender ssh ${node.runId} --node ${node.logicalId}\` works, and the entry appears once Tender connects again`
    );
  return null;
}

/** Why a node at this endpoint can never have an entry, whether its lease lives or not (a
 *  local folder, a Slurm compute node); null for a plain ssh host. */
export function neverAnEntry(ep: NodeEndpoint, runId: string, logicalId: string): string | null {
  if (ep.kind === 'local')
    return `a local-provider node is a folder on this machine (${ep.dir}), not an ssh host`;
  if (allocationOf(ep) !== null)
    return (
      `a Slurm compute node has no sshd of its own: \`tender ssh ${runId} --node ${logicalId}\` ` +
      'reaches it through srun on the login node'
    );
  return null;
}

/** Provider-given values end up in the user's ssh config, where a newline or a space could
 *  add an option (a ProxyCommand runs on this machine): only plain names pass. */
function unsafeField(
  ep: Extract<NodeEndpoint, { kind: 'ssh' }>,
  pin: SshConfigNode['pin'],
): string | null {
  if (!/^[A-Za-z0-9.:_-]+$/.test(ep.host)) return 'host name';
  if (!/^[A-Za-z0-9._-]+$/.test(ep.user)) return 'user name';
  if (!Number.isInteger(ep.port) || ep.port < 1 || ep.port > 65535) return 'port';
  if (/[\r\n]/.test(ep.authRef)) return 'identity file path';
  if (pin && !/^[A-Za-z0-9@._-]+$/.test(pin.keyType)) return 'host key type';
  if (pin?.publicKey && !/^[A-Za-z0-9+/]+=*$/.test(pin.publicKey)) return 'host key';
  return null;
}

function byRunThenNode(a: SshConfigNode, b: SshConfigNode): number {
  if (a.runId !== b.runId) return a.runId < b.runId ? -1 : 1;
  return nodeIndex(a.logicalId) - nodeIndex(b.logicalId) || (a.logicalId < b.logicalId ? -1 : 1);
}

function nodeIndex(logicalId: string): number {
  const m = /(\d+)$/.exec(logicalId);
  return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
}

/** Keeps a name usable as a Host pattern and a known_hosts name: no wildcards, commas,
 *  negation or whitespace. */
function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '-');
}

/** ssh config arguments with spaces (macOS's "Application Support") need quotes. */
export function quoted(path: string): string {
  return /[\s"]/.test(path) ? `"${path.replace(/"/g, '\\"')}"` : path;
}
