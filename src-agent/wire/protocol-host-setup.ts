// The host-setup FIFO (docs/host-setup.md): its ops and its entries.
// Part of the agent's protocol (docs/agent-protocol.md), re-exported by protocol.ts; types
// and constants only.

/** `host_setup.append`: one command for the node's host-setup FIFO. */
export interface HostSetupAppend {
  script: string;
  name?: string;
  /** Re-probe the node's capabilities (GPUs) once it has run: a driver install. */
  refreshCapabilities?: boolean;
}

/** One entry of the host-setup FIFO, as `D/host-setup/<id>.json` keeps it. */
export interface HostSetupEntry {
  /** 1, 2, …: its place in the FIFO, in the order entries were added. */
  id: number;
  script: string;
  name?: string;
  refreshCapabilities: boolean;
  /** `declared`: seeded from the host declaration's host_setup (`declIndex` its index
   *  there); `appended`: by `host_setup.append`. */
  origin: 'declared' | 'appended';
  declIndex?: number;
  /** The names of the secrets it runs with (`host_setup.secrets` gives their values, kept
   *  in the daemon's memory only); it waits, pending, until every one is held. */
  secrets?: string[];
  state: 'pending' | 'running' | 'exited';
  pid: number | null;
  /** Exit status; null when killed by a signal or when the outcome is unknown. */
  code: number | null;
  signal: string | null;
  addedAt: number;
  startedAt: number | null;
  exitedAt: number | null;
  /** Its log section: the seq of its header line and of its exit line (null until then). */
  firstSeq: number | null;
  lastSeq: number | null;
}

/** `host_setup.secrets`: values for the secrets host-setup entries name, as environment
 *  variables. Sent over the socket only: never on a command line, in a file or in a log. */
export interface HostSetupSecrets {
  env: Record<string, string>;
}

export interface HostSetupStatus {
  entries: HostSetupEntry[];
  /** No entry is pending or running: the job's phases may start. */
  drained: boolean;
}
