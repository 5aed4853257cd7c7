import { createServer, type Server, type Socket } from 'node:net';
import { pipeline, type Duplex } from 'node:stream';
import { portInUseMessage } from '../../contract/forward';
import { TenderError } from '../../base/tender-error';
import { type NodeShell, TcpOpenError } from '../../transport/node-shell';

export interface LocalForwardOptions {
  /** The port on the node's 127.0.0.1. */
  remotePort: number;
  /** The port here: null, `remotePort` or a free one when that is taken; 0, a free one;
   *  another, exactly that one (bad_input when another program holds it). */
  localPort: number | null;
  /** The node's shell; given the shell that just failed for want of a connection, a fresh
   *  one (KeptShell.get). */
  shell: (failed?: NodeShell) => Promise<NodeShell>;
  /** A connection that could not be carried to the node, and why (for the node's log). */
  onError?: (err: Error) => void;
}

/** The node's 127.0.0.1:remotePort, reached from this machine's 127.0.0.1:localPort — and
 *  from nowhere else: the listener never binds another address. Each accepted connection
 *  gets a channel of its own on whatever connection the shell getter holds now; one that
 *  fails for want of a connection is retried once on a fresh one. Backpressure runs end to
 *  end (pipeline), and an error ends that connection alone. */
export class LocalForward {
  readonly direction = 'local' as const;
  readonly host = '127.0.0.1';
  readonly remotePort: number;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #opts: LocalForwardOptions;
  #isClosed = false;

  private constructor(server: Server, opts: LocalForwardOptions) {
    this.#server = server;
    this.#opts = opts;
    this.remotePort = opts.remotePort;
    server.on('connection', (socket) => void this.#carry(socket));
  }

  /** Listens, or throws bad_input naming the fix (a local port in use, or one that needs
   *  privileges). */
  static async open(opts: LocalForwardOptions): Promise<LocalForward> {
    const server = await listenHere(opts.remotePort, opts.localPort);
    return new LocalForward(server, opts);
  }

  get localPort(): number {
    const address = this.#server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  /** Connections carried now. */
  get connections(): number {
    return this.#sockets.size;
  }

  /** Stops listening and ends every connection it carries. */
  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const s of this.#sockets) s.destroy();
    await closed;
  }

  async #carry(socket: Socket): Promise<void> {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    socket.on('error', () => {}); // a reset before the pipeline is up ends this one only
    socket.setNoDelay(true);
    let remote: Duplex;
    try {
      remote = await this.#openRemote();
    } catch (err) {
      socket.destroy();
      if (!this.#isClosed) this.#opts.onError?.(err as Error);
      return;
    }
    if (this.#isClosed || socket.destroyed) return void remote.destroy();
    // Browsers reset connections all the time: how one ended is nobody's business.
    pipeline(socket, remote, socket, () => {});
  }

  async #openRemote(): Promise<Duplex> {
    const { remotePort } = this.#opts;
    const shell = await this.#opts.shell();
    try {
      return await openTcp(shell, remotePort);
    } catch (err) {
      if (!(err instanceof TcpOpenError && err.isConnectionGone) || this.#isClosed) throw err;
      return openTcp(await this.#opts.shell(shell), remotePort);
    }
  }
}

function openTcp(shell: NodeShell, port: number): Promise<Duplex> {
  if (!shell.openTcp) return Promise.reject(new Error(`${shell.description} cannot forward ports`));
  return shell.openTcp('127.0.0.1', port);
}

/** A server on 127.0.0.1 at the port a forward asks for (see `localPort`). */
async function listenHere(remotePort: number, localPort: number | null): Promise<Server> {
  if (localPort !== null) {
    try {
      return await listen(localPort);
    } catch (err) {
      throw listenError(err as NodeJS.ErrnoException, remotePort, localPort);
    }
  }
  try {
    return await listen(remotePort);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES')
      throw listenError(err as Error, remotePort, remotePort);
    return listen(0); // the same port is taken (or privileged): any free one says so in its URL
  }
}

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Half-open allowed: a client that is done sending still gets the whole answer.
    const server = createServer({ noDelay: true, allowHalfOpen: true });
    server.once('error', reject);
    // 127.0.0.1 only: a forward is private to this machine, never on a LAN or the internet.
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.off('error', reject);
      server.on('error', () => {}); // after listening: per-connection errors end them only
      resolve(server);
    });
  });
}

function listenError(err: NodeJS.ErrnoException, remotePort: number, localPort: number): Error {
  if (err.code === 'EADDRINUSE')
    return new TenderError(
      'bad_input',
      portInUseMessage(remotePort, localPort),
      `or give the node port alone (${remotePort}): Tender takes it, or a free port when it is taken`,
    );
  if (err.code === 'EACCES')
    return new TenderError(
      'bad_input',
      `local port ${localPort} needs privileges on this machine: pick one above 1023 (${remotePort}:${localPort + 10000 <= 65535 ? localPort + 10000 : 16006})`,
    );
  return new TenderError(
    'infrastructure',
    `could not listen on 127.0.0.1:${localPort}: ${err.code ?? err.message}`,
  );
}
