// The control socket. Only this user may connect: the socket is created under umask 077.
import { rmSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';

export async function listen(
  path: string,
  onConnection: (socket: Socket) => void,
): Promise<Server> {
  // We hold the lock, so a socket file left here is a dead daemon's.
  rmSync(path, { force: true });
  const server = createServer({ allowHalfOpen: true }, onConnection);
  const previous = process.umask(0o077);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(previous);
  }
  return server;
}

/** Stops accepting and removes the socket file; open connections stay until closed. */
export function stopListening(server: Server, path: string): void {
  server.close();
  rmSync(path, { force: true });
}
