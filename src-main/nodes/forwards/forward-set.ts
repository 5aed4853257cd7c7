import {
  formatPortForward,
  type PortForwardSpec,
  type RemoteForwardSpec,
} from '../../contract/forward';
import { TenderError } from '../../base/tender-error';
import type { NodeShell } from '../../transport/node-shell';
import { KeptShell } from './kept-shell';
import { LocalForward } from './local-forward';
import { RemoteForward } from './remote-forward';

export type Forward = LocalForward | RemoteForward;

export interface ForwardSetOptions {
  /** A connection that could not be carried, a reverse forward listening again. */
  onNote?: (line: string) => void;
}

/** One node's forwards in this process, over one kept connection (KeptShell): opened one by
 *  one or all that a job declares, closed one by one or all at once (teardown). */
export class ForwardSet {
  readonly #shell: KeptShell;
  readonly #forwards = new Map<string, Forward>();
  readonly #opening = new Map<string, Promise<Forward>>();
  readonly #opts: ForwardSetOptions;
  #isClosed = false;

  constructor(connect: (signal: AbortSignal) => Promise<NodeShell>, opts: ForwardSetOptions = {}) {
    this.#shell = new KeptShell(connect);
    this.#opts = opts;
  }

  /** Every open forward, local ones first, each by its node port. */
  list(): Forward[] {
    return [...this.#forwards.values()].sort(
      (a, b) => a.direction.localeCompare(b.direction) || a.remotePort - b.remotePort,
    );
  }

  get size(): number {
    return this.#forwards.size;
  }

  /** The connection the forwards share (made when there is none): others may ride it too,
   *  such as a follow of the node's agent log. */
  shell(): Promise<NodeShell> {
    return this.#shell.get();
  }

  /** No forward open, none opening: the set can go. */
  get isIdle(): boolean {
    return this.#forwards.size === 0 && this.#opening.size === 0;
  }

  /** The node's port reached from here. The same node port asked again answers the forward
   *  open (unless another local port is named: conflict). */
  async openLocal(spec: PortForwardSpec): Promise<LocalForward> {
    const f = await this.#open(`local:${spec.remotePort}`, async () => {
      const local = await LocalForward.open({
        ...spec,
        shell: (failed) => this.#shell.get(failed),
        onError: (err) => this.#opts.onNote?.(`forward ${formatPortForward(spec)}: ${err.message}`),
      });
      // Connected now, not at the first use: a node that cannot be reached says so here, and
      // the first connection pays no handshake.
      try {
        await this.#shell.get();
      } catch (err) {
        await local.close();
        throw err;
      }
      return local;
    });
    const local = f as LocalForward;
    if (spec.localPort !== null && spec.localPort !== 0 && spec.localPort !== local.localPort)
      throw new TenderError(
        'conflict',
        `node port ${spec.remotePort} is forwarded to local port ${local.localPort} already`,
        'use that one, or close it first',
      );
    return local;
  }

  /** A port on the node reaching a service here. */
  async openRemote(spec: RemoteForwardSpec): Promise<RemoteForward> {
    const f = await this.#open(`remote:${spec.nodePort}`, () =>
      RemoteForward.open({
        ...spec,
        shell: (failed) => this.#shell.get(failed),
        onState: (state, detail) =>
          this.#opts.onNote?.(
            state === 'listening'
              ? `reverse forward ${spec.nodePort}: listening again`
              : `reverse forward ${spec.nodePort}: reconnecting (${detail})`,
          ),
      }),
    );
    const remote = f as RemoteForward;
    if (remote.host !== spec.host || remote.localPort !== spec.localPort)
      throw new TenderError(
        'conflict',
        `node port ${spec.nodePort} already reaches ${remote.host}:${remote.localPort} from here`,
        'close that reverse forward first',
      );
    return remote;
  }

  /** Opens every forward a job declares; those that fail are named, the others stay open. */
  async openAll(
    local: readonly PortForwardSpec[],
    remote: readonly RemoteForwardSpec[],
  ): Promise<{ opened: Forward[]; problems: string[] }> {
    const results = await Promise.allSettled([
      ...local.map((s) => this.openLocal(s)),
      ...remote.map((s) => this.openRemote(s)),
    ]);
    const opened: Forward[] = [];
    const problems: string[] = [];
    for (const r of results) {
      if (r.status === 'fulfilled') opened.push(r.value);
      else problems.push((r.reason as Error).message);
    }
    return { opened, problems };
  }

  /** Closes one forward (`remotePort`: the node's port); false when none was open. */
  async closeOne(direction: 'local' | 'remote', remotePort: number): Promise<boolean> {
    const key = `${direction}:${remotePort}`;
    const f = this.#forwards.get(key) ?? (await this.#opening.get(key)?.catch(() => null));
    if (!f) return false;
    this.#forwards.delete(key);
    await f.close();
    return true;
  }

  /** Closes every forward and the connection they share. */
  async close(): Promise<void> {
    this.#isClosed = true;
    const opening = await Promise.allSettled(this.#opening.values());
    const all = new Set<Forward>(this.#forwards.values());
    for (const r of opening) if (r.status === 'fulfilled') all.add(r.value);
    this.#forwards.clear();
    await Promise.allSettled([...all].map((f) => f.close()));
    await this.#shell.close();
  }

  async #open(key: string, make: () => Promise<Forward>): Promise<Forward> {
    if (this.#isClosed) throw new TenderError('conflict', "the node's forwards are closed");
    const open = this.#forwards.get(key);
    if (open) return open;
    const pending = this.#opening.get(key);
    if (pending) return pending;
    const made = make().then(async (f) => {
      if (this.#isClosed) {
        await f.close();
        throw new TenderError('conflict', "the node's forwards are closed");
      }
      this.#forwards.set(key, f);
      return f;
    });
    this.#opening.set(key, made);
    try {
      return await made;
    } finally {
      this.#opening.delete(key);
    }
  }
}
