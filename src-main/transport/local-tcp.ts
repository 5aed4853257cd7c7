// TCP for a local node: the node is this machine, so a forward to its loopback is a plain
// connection, and a listener "on the node" is a server on this machine's 127.0.0.1.
import { connect, createServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TcpOpenError } from './node-shell';

/** A connection to `host:port` here; refused is the node's answer (nothing listens). */
export function connectTcp(host: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host, port, noDelay: true, allowHalfOpen: true });
    socket.once('connect', () => {
      socket.off('error', onError);
      resolve(socket);
    });
    const onError = (err: NodeJS.ErrnoException) =>
      reject(
        new TcpOpenError(
          `could not connect to ${host}:${port} (${err.code ?? err.message}): is anything listening there?`,
          false,
          { cause: err },
        ),
      );
    socket.once('error', onError);
  });
}

/** A server on 127.0.0.1:`port` handing each connection on; resolves with the function that
 *  stops it listening. */
export function listenTcp(
  port: number,
  onConnection: (stream: Duplex) => void,
): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    // Half-open allowed, as an SSH channel is: each side ends its own direction.
    const server = createServer({ noDelay: true, allowHalfOpen: true }, (socket) => {
      socket.on('error', () => {}); // the handler's pipeline reports
      onConnection(socket);
    });
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new Error(`could not listen on 127.0.0.1:${port} (${err.code ?? err.message})`, {
          cause: err,
        }),
      ),
    );
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () =>
      // Stops accepting at once; connections already handed on are their owner's to end.
      resolve(async () => void server.close()),
    );
  });
}
