import type { Readable, Writable } from 'node:stream';

export interface ExitStatus {
  code: number | null;
  signal: string | null;
}

/** One command running on a node, with its three streams. */
export interface ExecChannel {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles when the command has exited and both output streams have ended. Output must
   *  be consumed (read or resumed) or it never settles. */
  readonly exit: Promise<ExitStatus>;
  /** Ends the channel from this side; the remote command may outlive it (ssh without pty). */
  close(): void;
}

/** A way to run commands on a node: ssh2 for remote nodes, child processes for local ones.
 *  The bootstrap session and the agent link are written against this and nothing else. */
export interface NodeShell {
  /** For messages: `local:/path` or `root@1.2.3.4:22001`. */
  readonly description: string;
  /** Runs `command` with `bash -c` semantics in the node's home (local: the lease folder). */
  exec(command: string): ExecChannel;
  /** Connects to a unix socket on the node without running anything there (OpenSSH's
   *  direct-streamlocal). Rejects when the socket does not answer or the server forbids
   *  it; the caller then falls back to a command. The channel never has an exit code.
   *  Local nodes have none: there a link is an `attach` process, which tests kill to cut
   *  it. */
  openSocket?(path: string): Promise<ExecChannel>;
  close(): Promise<void>;
}

/** Connects a shell to an endpoint, retrying inside the deadline the caller gives. */
export type ShellConnector = (signal: AbortSignal) => Promise<NodeShell>;
