import type { NodeShell } from '../../transport/node-shell';

/** The connection a node's forwards share: made on first use, kept, and made anew when it
 *  drops (or when a caller says it failed them), so each new forwarded connection rides
 *  whatever connection is current. Closed with the forwards. */
export class KeptShell {
  readonly #connect: (signal: AbortSignal) => Promise<NodeShell>;
  readonly #abort = new AbortController();
  #current: Promise<NodeShell> | null = null;
  #shell: NodeShell | null = null;
  #isClosed = false;

  constructor(connect: (signal: AbortSignal) => Promise<NodeShell>) {
    this.#connect = connect;
  }

  /** The current shell, connecting when there is none. `failed`: a shell that just failed
   *  its caller for want of a connection: it is dropped and a new one made, unless another
   *  caller has replaced it already. */
  get(failed?: NodeShell): Promise<NodeShell> {
    if (this.#isClosed) return Promise.reject(new Error("the node's forwards are closed"));
    if (failed && failed === this.#shell) this.#drop(failed);
    if (this.#current) return this.#current;
    const made: Promise<NodeShell> = this.#connect(this.#abort.signal).then((shell) => {
      if (this.#isClosed || this.#current !== made) {
        void shell.close().catch(() => {});
        throw new Error("the node's forwards are closed");
      }
      this.#shell = shell;
      void shell.closed?.then(() => {
        if (this.#shell === shell) this.#drop(shell);
      });
      return shell;
    });
    made.catch(() => {
      if (this.#current === made) this.#current = null; // the next caller tries again
    });
    this.#current = made;
    return made;
  }

  async close(): Promise<void> {
    this.#isClosed = true;
    this.#abort.abort();
    const current = this.#current;
    this.#current = null;
    this.#shell = null;
    const shell = await current?.catch(() => null);
    await shell?.close().catch(() => {});
  }

  #drop(shell: NodeShell): void {
    this.#shell = null;
    this.#current = null;
    void shell.close().catch(() => {});
  }
}
