// TCP over one ssh2 connection, for port forwards: direct-tcpip channels out to a port on the
// node (ssh -L's half), and tcpip-forward listeners on the node's loopback whose connections
// come back as channels (ssh -R's half). Neither runs anything on the node, and neither
// counts against sshd's MaxSessions (that caps session channels only).
import type { Duplex } from 'node:stream';
import type { Client, ClientChannel, TcpConnectionDetails } from 'ssh2';
import { TcpOpenError } from './node-shell';
import { redactSecrets } from './ssh-errors';

/** A channel the server has not confirmed within this is given up (and closed if it comes):
 *  a connection that stopped answering, which keepalive would notice only after ~40 s. */
const OPEN_TIMEOUT_MS = 15_000;
const UNFORWARD_TIMEOUT_MS = 2_000;
/** Where remote forwards listen on the node: its loopback only, never a public address. */
const NODE_LOOPBACK = '127.0.0.1';

/** Opens a direct-tcpip channel from the node to `host:port`. `isGone` says whether the
 *  connection has dropped (then the failure is the connection's, not the node's). */
export function openTcpChannel(
  client: Client,
  host: string,
  port: number,
  where: string,
  isGone: () => boolean,
): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    let isSettled = false;
    const timer = setTimeout(() => {
      isSettled = true;
      reject(new TcpOpenError(`${where} did not open a channel to ${host}:${port} in time`, true));
    }, OPEN_TIMEOUT_MS);
    const fail = (err: unknown) => {
      clearTimeout(timer);
      if (isSettled) return;
      isSettled = true;
      // An open failure the server answered (`reason`: connect failed, prohibited…) comes
      // from a live connection; anything else (not connected, closed) is the connection's.
      const reason = (err as { reason?: unknown }).reason;
      const gone = typeof reason !== 'number' || isGone();
      const msg = redactSecrets((err as Error).message ?? String(err));
      reject(
        new TcpOpenError(
          gone
            ? `the connection to ${where} is gone (${msg})`
            : `${where} could not connect to ${host}:${port} (${msg}): is anything listening there?`,
          gone,
          { cause: err },
        ),
      );
    };
    try {
      client.forwardOut('127.0.0.1', 0, host, port, (err, stream) => {
        if (err) return fail(err);
        clearTimeout(timer);
        if (isSettled) return void stream.close(); // given up on: nobody will read it
        isSettled = true;
        resolve(stream);
      });
    } catch (err) {
      fail(err); // ssh2 throws "Not connected" at once when the socket is gone
    }
  });
}

/** The tcpip-forward listeners of one connection: the server's `tcp connection` opens go to
 *  whoever listens on that port; others are refused. */
export class TcpListeners {
  readonly #handlers = new Map<string, (stream: Duplex) => void>();
  readonly #client: Client;

  constructor(client: Client) {
    this.#client = client;
    client.on('tcp connection', (details: TcpConnectionDetails, accept, reject) => {
      const handler = this.#handlers.get(`${details.destIP}:${details.destPort}`);
      if (!handler) return reject();
      const stream: ClientChannel = accept();
      stream.on('error', () => {}); // the handler's pipeline reports; never an unhandled error
      handler(stream);
    });
  }

  /** Listens on the node's 127.0.0.1:`port`; resolves with the function that stops it. */
  listen(
    port: number,
    onConnection: (stream: Duplex) => void,
    where: string,
  ): Promise<() => Promise<void>> {
    const key = `${NODE_LOOPBACK}:${port}`;
    if (this.#handlers.has(key))
      return Promise.reject(new Error(`already listening on ${key} of ${where}`));
    this.#handlers.set(key, onConnection);
    return new Promise((resolve, reject) => {
      const fail = (err: unknown) => {
        this.#handlers.delete(key);
        const msg = redactSecrets((err as Error).message ?? String(err));
        reject(
          new Error(
            `${where} refused to listen on its ${key} (${msg}): the port may be in use there, or its sshd forbids forwarding (AllowTcpForwarding)`,
            { cause: err },
          ),
        );
      };
      try {
        this.#client.forwardIn(NODE_LOOPBACK, port, (err) => {
          if (err) return fail(err);
          resolve(() => this.#unlisten(key, port));
        });
      } catch (err) {
        fail(err);
      }
    });
  }

  /** Stops a listener: no more connections reach its handler; those open stay. */
  async #unlisten(key: string, port: number): Promise<void> {
    if (!this.#handlers.delete(key)) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, UNFORWARD_TIMEOUT_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      try {
        this.#client.unforwardIn(NODE_LOOPBACK, port, done);
      } catch {
        done(); // not connected: the server dropped the listener with the connection
      }
    });
  }
}
