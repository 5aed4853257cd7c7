// The HTTP server under each marketplace fake, on 127.0.0.1 and a free port. Its close()
// returns once every request it took has been handled: a handler still running (a create
// making a node, a sync starting a node's sshd) would otherwise go on after the fake's
// stop() has ended the nodes it knew of, and leave its own behind.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeHttpServer {
  url: string;
  /** Refuses new connections, drops open ones, and waits for the handlers still running. */
  close(): Promise<void>;
}

export async function startFakeHttpServer(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<FakeHttpServer> {
  const inFlight = new Set<Promise<void>>();
  const server = createServer((req, res) => {
    const handled = handle(req, res).catch((err: unknown) => void res.destroy(err as Error));
    inFlight.add(handled);
    void handled.then(() => inFlight.delete(handled));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // A body being read ends in an error once its connection is dropped: bounded.
      await Promise.all(inFlight);
    },
  };
}
