import { connect } from 'node:net';
import { pipeline, type Duplex } from 'node:stream';
import type { NodeShell } from '../../transport/node-shell';

export interface RemoteForwardOptions {
  /** The port on the node's 127.0.0.1 that listens. */
  nodePort: number;
  /** Where each of its connections goes from here (`localhost`). */
  host: string;
  localPort: number;
  shell: (failed?: NodeShell) => Promise<NodeShell>;
  /** Listening again after the connection dropped, or listening once more. */
  onState?: (state: 'listening' | 'reconnecting', detail: string) => void;
}

const RELISTEN_MS = [250, 500, 1_000, 2_000, 5_000];

/** The node's 127.0.0.1:nodePort reaching host:localPort from this machine (`ssh -R`, bound
 *  to the node's loopback only). sshd drops the listener with the connection: when that
 *  drops, it listens again on a fresh one, with backoff, until closed. */
export class RemoteForward {
  readonly direction = 'remote' as const;
  readonly remotePort: number;
  readonly host: string;
  readonly localPort: number;
  readonly #opts: RemoteForwardOptions;
  readonly #streams = new Set<Duplex>();
  #stop: (() => Promise<void>) | null = null;
  #isClosed = false;
  #wake: (() => void) | null = null;

  private constructor(opts: RemoteForwardOptions) {
    this.#opts = opts;
    this.remotePort = opts.nodePort;
    this.host = opts.host;
    this.localPort = opts.localPort;
  }

  /** Listens on the node, or throws why it cannot (the port taken there, forwarding off). */
  static async open(opts: RemoteForwardOptions): Promise<RemoteForward> {
    const f = new RemoteForward(opts);
    await f.#listen(await opts.shell());
    return f;
  }

  /** Whether the node listens now (false while a dropped connection is made anew). */
  get isListening(): boolean {
    return this.#stop !== null;
  }

  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#wake?.();
    const stop = this.#stop;
    this.#stop = null;
    for (const s of this.#streams) s.destroy();
    await stop?.().catch(() => {});
  }

  async #listen(shell: NodeShell): Promise<void> {
    if (!shell.listenRemote) throw new Error(`${shell.description} cannot listen for forwards`);
    const stop = await shell.listenRemote(this.#opts.nodePort, (s) => this.#carry(s));
    if (this.#isClosed) return void (await stop().catch(() => {}));
    this.#stop = stop;
    void shell.closed?.then((reason) => {
      if (this.#stop !== stop) return;
      this.#stop = null;
      void this.#relisten(shell, reason);
    });
  }

  async #relisten(dropped: NodeShell, reason: string): Promise<void> {
    this.#opts.onState?.('reconnecting', reason);
    let failed: NodeShell | undefined = dropped;
    for (let attempt = 0; !this.#isClosed; attempt++) {
      try {
        const shell = await this.#opts.shell(failed);
        failed = undefined;
        await this.#listen(shell);
        if (!this.#isClosed) this.#opts.onState?.('listening', shell.description);
        return;
      } catch (err) {
        // The old session may hold the port on the node a while yet: wait, try again.
        this.#opts.onState?.('reconnecting', (err as Error).message);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, RELISTEN_MS[Math.min(attempt, RELISTEN_MS.length - 1)]);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = null;
      }
    }
  }

  #carry(stream: Duplex): void {
    if (this.#isClosed) return void stream.destroy();
    this.#streams.add(stream);
    const socket = connect({
      host: this.host,
      port: this.localPort,
      noDelay: true,
      allowHalfOpen: true,
    });
    socket.on('error', () => {}); // refused here: the node's side of it just closes
    pipeline(stream, socket, stream, () => this.#streams.delete(stream));
  }
}
