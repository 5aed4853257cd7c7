// Fixtures for the forward tests: a TCP server on 127.0.0.1, a client that sends and reads,
// and a local shell whose "connection" a test can drop.
import { mkdtempSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { LocalShell } from '../../transport/local-shell';
import { type NodeShell, TcpOpenError } from '../../transport/node-shell';

/** A server on 127.0.0.1 (a free port) that runs `serve` for each connection. */
export async function tcpServer(
  serve: (socket: Socket) => void,
): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    serve(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    server,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** Echoes what it reads. */
export const echo = (s: Socket): void => void s.pipe(s);

/** Connects to 127.0.0.1:`port`, sends `data`, half-closes, and resolves with all it read
 *  (rejects on a refused or reset connection). */
export function roundTrip(port: number, data: Buffer | string = ''): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const c = connect(port, '127.0.0.1');
    const got: Buffer[] = [];
    c.on('data', (d: Buffer) => got.push(d));
    c.on('error', reject);
    c.on('end', () => resolve(Buffer.concat(got)));
    c.on('connect', () => c.end(data));
  });
}

/** Resolves with the error code of a connection to 127.0.0.1:`port` (ECONNREFUSED), or
 *  'connected'. */
export function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const c = connect(port, '127.0.0.1');
    c.on('connect', () => {
      c.destroy();
      resolve('connected');
    });
    c.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

/** A local node's shell with a connection a test can drop: `drop()` stops its listeners,
 *  fails its later opens as a dropped SSH connection does, and resolves `closed`. */
export class DroppableShell implements NodeShell {
  readonly description: string;
  readonly closed: Promise<string>;
  readonly #inner: LocalShell;
  readonly #stops = new Set<() => Promise<void>>();
  #resolveClosed!: (reason: string) => void;
  #isDropped = false;
  opens = 0;

  constructor(name: string) {
    this.description = `fake:${name}`;
    this.#inner = new LocalShell(mkdtempSync(join(tmpdir(), 'tender-fwd-')));
    this.closed = new Promise((r) => (this.#resolveClosed = r));
  }

  exec(command: string) {
    return this.#inner.exec(command);
  }

  async openTcp(host: string, port: number): Promise<Duplex> {
    this.opens++;
    if (this.#isDropped) throw new TcpOpenError(`${this.description}: not connected`, true);
    return this.#inner.openTcp(host, port);
  }

  async listenRemote(port: number, onConnection: (s: Duplex) => void) {
    if (this.#isDropped) throw new Error(`${this.description}: not connected`);
    const stop = await this.#inner.listenRemote(port, onConnection);
    this.#stops.add(stop);
    return async () => {
      this.#stops.delete(stop);
      await stop();
    };
  }

  /** The connection is gone (as killed sshd sessions are); `quietly`: not noticed yet. */
  async drop(opts: { quietly?: boolean } = {}): Promise<void> {
    this.#isDropped = true;
    for (const stop of this.#stops) await stop();
    this.#stops.clear();
    if (!opts.quietly) this.#resolveClosed('dropped by the test');
  }

  async close(): Promise<void> {
    await this.drop();
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on right now (the OS picked it). */
export async function freePortHere(): Promise<number> {
  const s = await tcpServer(() => {});
  await s.close();
  return s.port;
}
