import type { AgentAddress } from '../ledger/node-record';
import { join } from 'node:path';
import { allocationOf } from '../providers/allocation';
import type { NodeEndpoint } from '../providers/provider';
import { shq } from '../transport/exec-helpers';

/** Where Tender's files live on a node, as shell words (remote paths expand `$HOME`). */
export interface NodeLayout {
  /** The node folder `D` of docs/agent-protocol.md. */
  dirWord: string;
  /** Survives leases: the agent bundle (and later runtimes) cached by hash. */
  cacheWord: string;
  /** The folder holding the node folders and the cache, made 0700 at each bootstrap. */
  rootWord: string;
  /** Commands that run a Node runtime, tried before looking on PATH. */
  runtimeHints: string[];
  /** The daemon is started by what holds the node's allocation (a cluster job's batch
   *  script): `agent start --holder`. */
  holder?: boolean;
}

export function layoutFor(endpoint: NodeEndpoint, label: string, home: string): NodeLayout {
  if (endpoint.kind === 'local') {
    return {
      dirWord: shq(endpoint.dir),
      cacheWord: shq(join(home, 'local', 'cache')),
      rootWord: shq(join(home, 'local')),
      runtimeHints: [thisRuntime()],
    };
  }
  return {
    dirWord: `"$HOME"/.tender/nodes/${label}`,
    cacheWord: `"$HOME"/.tender/cache`,
    rootWord: `"$HOME"/.tender`,
    runtimeHints: [],
    ...(allocationOf(endpoint) !== null ? { holder: true } : {}),
  };
}

/** The Node that runs Tender itself: inside Electron, its binary acting as Node. */
function thisRuntime(): string {
  const exe = shq(process.execPath);
  return process.versions.electron ? `ELECTRON_RUN_AS_NODE=1 ${exe}` : exe;
}

// Kept in the node record (the ledger's floor); named here too for the layout's users.
export type { AgentAddress } from '../ledger/node-record';

/** The agent bundle cached on the node under its hash, as a shell word. */
export function cachedAgentWord(layout: NodeLayout, bundle: { sha256: string }): string {
  return `${layout.cacheWord}/agent/tender-agent-${bundle.sha256.slice(0, 16)}.cjs`;
}

export function agentCommand(addr: AgentAddress, sub: string): string {
  return `${addr.runtime} ${addr.bundleWord} ${sub} --dir ${addr.dirWord}`;
}
