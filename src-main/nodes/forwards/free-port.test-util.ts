import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on right now (the OS picked it). */
export function freePortHere(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
