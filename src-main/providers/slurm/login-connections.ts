// The cluster login connections a Slurm provider talks through: one kept per cluster (lookups
// poll every half second; a login node should not see a new SSH connection for each), closed
// after a quiet spell, made again when it dropped.
import { ProviderError } from '../provider';
import type { NodeShell } from '../../transport/node-shell';
import type { ClusterEntry } from './clusters-file';

export type ClusterConnector = (cluster: ClusterEntry, signal: AbortSignal) => Promise<NodeShell>;

/** How long closing waits for the login connections to close. */
const CLOSE_WAIT_MS = 1_000;
/** A login connection nobody used for this long is closed. */
const LOGIN_IDLE_MS = 20_000;

export class LoginConnections {
  private readonly logins = new Map<
    string,
    { shell: Promise<NodeShell>; timer: NodeJS.Timeout | null }
  >();

  constructor(
    private readonly home: string,
    private readonly connect: ClusterConnector,
  ) {}

  async close(): Promise<void> {
    const held = [...this.logins.values()];
    this.logins.clear();
    for (const h of held) if (h.timer) clearTimeout(h.timer);
    // A connection still being made is not waited for (an unreachable login node would hold
    // the core's close for its whole connect deadline): it closes itself once made.
    const closing = Promise.allSettled(held.map((h) => h.shell.then((s) => s.close())));
    await Promise.race([closing, new Promise((r) => setTimeout(r, CLOSE_WAIT_MS).unref())]);
  }

  /** Runs `work` on the cluster's login connection. A command that fails because the
   *  connection went is tried once more on a new one. */
  async withLogin<T>(
    c: ClusterEntry,
    signal: AbortSignal,
    work: (shell: NodeShell) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const shell = await this.loginShell(c, signal);
      try {
        const out = await work(shell);
        this.keepAlive(c.name);
        return out;
      } catch (err) {
        const isDropped = await Promise.race([
          shell.closed?.then(() => true) ?? Promise.resolve(false),
          new Promise<boolean>((r) => setTimeout(() => r(false), 0)),
        ]);
        if (!isDropped || attempt > 0) throw err;
        this.logins.delete(c.name);
      }
    }
  }

  private loginShell(c: ClusterEntry, signal: AbortSignal): Promise<NodeShell> {
    const held = this.logins.get(c.name);
    if (held) return held.shell;
    const shell = this.connect(c, signal).catch((err: Error) => {
      this.logins.delete(c.name);
      throw new ProviderError(
        `cannot reach ${c.name}'s login node ${c.user}@${c.host}:${c.port}: ${err.message}`,
        {
          hint: c.identityFile
            ? `check ${c.identityFile} is a key the login node accepts`
            : `add ${this.home}/keys/id_ed25519.pub to ~/.ssh/authorized_keys on the login node`,
        },
      );
    });
    const entry = { shell, timer: null as NodeJS.Timeout | null };
    this.logins.set(c.name, entry);
    void shell.then(
      (s) => s.closed?.then(() => this.logins.get(c.name) === entry && this.logins.delete(c.name)),
      () => {},
    );
    return shell;
  }

  private keepAlive(name: string): void {
    const held = this.logins.get(name);
    if (!held) return;
    if (held.timer) clearTimeout(held.timer);
    held.timer = setTimeout(() => {
      if (this.logins.get(name) !== held) return;
      this.logins.delete(name);
      void held.shell.then(
        (s) => s.close(),
        () => {},
      );
    }, LOGIN_IDLE_MS);
    held.timer.unref();
  }
}
