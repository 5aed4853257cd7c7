// The open workspace sessions of an app, one per node: live sync pushes every few seconds,
// and each push through a kept session costs no SSH connect, exec or node process start.
// A session nobody used for a while is closed with its connection.
import type { AgentAddress } from '../../nodes/node-layout';
import type { NodeShell } from '../../transport/node-shell';
import { WorkspaceSession } from './sync-session';

interface Entry {
  opening: Promise<{ shell: NodeShell; session: WorkspaceSession }>;
  idle?: ReturnType<typeof setTimeout>;
  users: number;
  /** No longer handed out; closed once its last user is done. */
  isForgotten?: boolean;
}

/** The key of a node's session: a node that started over on a new lease (or agent) gets a
 *  new one. */
export function sessionKey(nodeId: string, address: AgentAddress, endpoint: unknown): string {
  return `${nodeId}\0${address.dirWord}\0${JSON.stringify(endpoint)}`;
}

export class WorkspaceSessions {
  private readonly open = new Map<string, Entry>();

  constructor(private readonly idleMs = 120_000) {}

  /**
   * Runs `work` with the session of node `key`, opening one (`connect`, then
   * `serve-workspace`) when there is none. A session that ended under `work` is dropped
   * and `work` runs once more on a new one: a push is all or nothing on the node, so
   * repeating one is safe. Any other failure of `work` leaves the session open.
   */
  async with<T>(
    key: string,
    connect: () => Promise<NodeShell>,
    address: AgentAddress,
    work: (session: WorkspaceSession) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const entry = this.entry(key, connect, address);
      entry.users++;
      clearTimeout(entry.idle);
      try {
        let session: WorkspaceSession;
        try {
          ({ session } = await entry.opening);
        } catch (err) {
          this.forget(key, entry);
          throw err;
        }
        try {
          return await work(session);
        } catch (err) {
          if (session.isOpen) throw err;
          this.forget(key, entry);
          if (attempt >= 2) throw err;
        }
      } finally {
        this.release(key, entry);
      }
    }
  }

  /** Closes the sessions of node `nodeId` (keys made by `sessionKey`). */
  async closeNode(nodeId: string): Promise<void> {
    const mine = [...this.open].filter(([key]) => key.startsWith(`${nodeId}\0`));
    for (const [key, entry] of mine) this.forget(key, entry);
    await Promise.all(mine.map(([, entry]) => (entry.users === 0 ? close(entry) : undefined)));
  }

  /** Closes every session and its connection. */
  async closeAll(): Promise<void> {
    const entries = [...this.open];
    this.open.clear();
    await Promise.all(entries.map(([, entry]) => close(entry)));
  }

  private entry(key: string, connect: () => Promise<NodeShell>, address: AgentAddress): Entry {
    const known = this.open.get(key);
    if (known) return known;
    const opening = (async () => {
      const shell = await connect();
      try {
        return { shell, session: await WorkspaceSession.open(shell, address) };
      } catch (err) {
        await shell.close();
        throw err;
      }
    })();
    opening.catch(() => {});
    const entry: Entry = { opening, users: 0 };
    this.open.set(key, entry);
    return entry;
  }

  private forget(key: string, entry: Entry): void {
    entry.isForgotten = true;
    if (this.open.get(key) === entry) this.open.delete(key);
  }

  private release(key: string, entry: Entry): void {
    entry.users--;
    if (entry.users > 0) return;
    if (entry.isForgotten) {
      void close(entry);
      return;
    }
    entry.idle = setTimeout(() => {
      this.forget(key, entry);
      if (entry.users === 0) void close(entry);
    }, this.idleMs);
    entry.idle.unref();
  }
}

/** Never fails: a session that cannot be closed cleanly is gone all the same. */
async function close(entry: Entry): Promise<void> {
  clearTimeout(entry.idle);
  const opened = await entry.opening.catch(() => undefined);
  if (!opened) return;
  await opened.session.close().catch(() => {});
  await opened.shell.close().catch(() => {});
}
