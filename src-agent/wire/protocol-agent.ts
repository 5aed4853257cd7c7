// What the agent says of itself and its node: `hello`, `status`, `D/agent.json`.
// Part of the agent's protocol (docs/agent-protocol.md), re-exported by protocol.ts; types
// and constants only.
import type { CacheInfo, Phase, PhaseState } from './protocol-phase';
import type { TeardownRecord } from './protocol-dead-man';

/** Flat keys such as `gpu.count` or `gpu.0.model`; numbers are counts or bytes. */
export type Capabilities = Record<string, string | number>;

export interface HelloResult {
  agentId: string;
  version: string;
  protocol: number;
  pid: number;
  startedAt: number;
  hostKey: string | null;
  lastSeq: number;
  capabilities: Capabilities;
  teardown: TeardownRecord | null;
  /** The absolute path of the socket the daemon serves: the app reaches it there directly
   *  (OpenSSH streamlocal) next time, with no `attach` process started on the node. */
  socket?: string;
}

export interface StatusResult {
  phases: Partial<Record<Phase, PhaseState>>;
  lastSeq: number;
  hasWorkspace: boolean;
  teardown: TeardownRecord | null;
  /** The node-wide cache folder (`TENDER_CACHE`) and its size; absent from older agents. */
  cache?: CacheInfo;
}

/** `D/agent.json`. */
export interface AgentInfo {
  pid: number;
  agentId: string;
  version: string;
  protocol: number;
  startedAt: number;
  socket: string;
}
