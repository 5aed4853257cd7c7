import type { Duplex, Readable, Writable } from 'node:stream';

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
  /** A TCP connection from the node to `host:port` (for a port forward: `127.0.0.1` is the
   *  node's own loopback), over OpenSSH's direct-tcpip; a local node connects from this
   *  machine. Rejects with a TcpOpenError that says whether the connection to the node is
   *  gone (worth a fresh shell) or the node refused (nothing listens there). */
  openTcp?(host: string, port: number): Promise<Duplex>;
  /** Listens on the node's 127.0.0.1:`port` (tcpip-forward; a local node: a server on this
   *  machine's 127.0.0.1) and hands each connection to `onConnection`. Resolves once
   *  listening, with the function that stops it; rejects when the port cannot be had. */
  listenRemote?(port: number, onConnection: (stream: Duplex) => void): Promise<() => Promise<void>>;
  /** Resolves with the reason once the connection to the node is gone; absent where it
   *  cannot drop (a local node). */
  readonly closed?: Promise<string>;
  /** The quickest exec round trip seen to this node's endpoint, over any connection
   *  (exec-round-trip.ts); undefined before the first, and where there is no link. */
  execRoundTripMs?(): number | undefined;
  /** Another handle on this connection, which keeps it open until it is closed too (the
   *  pool's connections: a job's first push rides on its bootstrap's connection, which the
   *  bootstrap closes before the push ends). Throws once this handle is closed. */
  share?(): NodeShell;
  close(): Promise<void>;
}

/** Why `openTcp` failed: `isConnectionGone` when the shell's connection dropped (or never
 *  answered), so a fresh shell may succeed; false when the node itself refused. */
export class TcpOpenError extends Error {
  constructor(
    message: string,
    readonly isConnectionGone: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TcpOpenError';
  }
}

/** Connects a shell to an endpoint, retrying inside the deadline the caller gives. */
export type ShellConnector = (signal: AbortSignal) => Promise<NodeShell>;
