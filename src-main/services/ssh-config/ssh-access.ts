import type { NodeRecord } from '../../ledger/node-record';
import { nodeWorkdir } from './editor-url';
import { neverAnEntry, nodeAlias, runAlias } from './ssh-config-entries';

/** A node or a run as the user's own ssh sees it in Tender's ssh config text: its alias,
 *  whether an entry names it, why not, and the folder an editor opens. What the app's
 *  editor buttons and `tender open` both read (no I/O here). */
export interface SshAccess {
  alias: string;
  hasEntry: boolean;
  /** Why there is no entry; null when there is one. */
  why: string | null;
  workdir: string | null;
  /** The node the alias reaches (a run's: the first node with an entry); null: none. */
  logicalId: string | null;
}

type Node = Pick<NodeRecord, 'logicalId' | 'agent' | 'connection'>;

/** `tender-<runId>-<node>`: one node's entry, or the comment that says why it has none. */
export function nodeAccess(
  config: string,
  runId: string,
  nodes: readonly Node[],
  logicalId: string,
): SshAccess {
  const alias = nodeAlias(runId, logicalId);
  const rec = nodes.find((n) => n.logicalId === logicalId);
  const hasEntry = hostLine(config, alias) !== null;
  const why = hasEntry
    ? null
    : (comment(config, alias) ??
      (rec
        ? (never(rec, runId) ?? 'its lease has ended')
        : `no node ${logicalId} in run ${runId}`));
  return { alias, hasEntry, why, workdir: rec ? nodeWorkdir(rec) : null, logicalId };
}

/** `tender-<runId>`: the run's first node that has an entry (the one the config gives the
 *  run's alias to), or why none has: the first node's reason, said for the run. */
export function runAccess(config: string, runId: string, nodes: readonly Node[]): SshAccess {
  const alias = runAlias(runId);
  const names = hostLine(config, alias);
  const rec = names ? nodes.find((n) => names.includes(nodeAlias(runId, n.logicalId))) : null;
  if (names)
    return {
      alias,
      hasEntry: true,
      why: null,
      workdir: rec ? nodeWorkdir(rec) : null,
      logicalId: rec?.logicalId ?? null,
    };
  const first = nodes[0];
  const why =
    first === undefined
      ? `no run ${runId}`
      : (nodes.map((n) => comment(config, nodeAlias(runId, n.logicalId))).find(Boolean) ??
        never(first, runId) ??
        (nodes.length === 1 ? 'its lease has ended' : 'the leases of its nodes have ended'));
  return { alias, hasEntry: false, why, workdir: null, logicalId: null };
}

/** A node that could never have an entry (a local folder, a Slurm compute node) says so
 *  after its lease too: more use than "it has ended". */
function never(n: Node, runId: string): string | null {
  return n.connection ? neverAnEntry(n.connection, runId, n.logicalId) : null;
}

/** The names of the `Host` line that names `alias`, or null. */
function hostLine(config: string, alias: string): string[] | null {
  for (const line of config.split('\n')) {
    if (!line.startsWith('Host ')) continue;
    const names = line.slice(5).trim().split(/\s+/);
    if (names.includes(alias)) return names;
  }
  return null;
}

/** The reason the config gives for a node without an entry (`# <alias>: <why>`). */
function comment(config: string, alias: string): string | null {
  const prefix = `# ${alias}: `;
  const line = config.split('\n').find((l) => l.startsWith(prefix));
  return line ? line.slice(prefix.length) : null;
}
