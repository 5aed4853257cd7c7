import { within } from '../../base/within';
import type { ExecChannel, NodeShell } from '../../transport/node-shell';

// A lease's destroy command opened on its host ahead of the destroy, waiting for a go on
// its stdin. Opening a command costs two round trips (the channel, then the exec) before
// it runs; a run's end waits for its destroy, so those are taken off it: the destroy then
// costs the go's way there and the answer's way back. Only a go line runs the command;
// stdin closed (the process gone, the lease kept) ends it having done nothing.

/** What a destroy fired on an armed command printed; null where the command never got the
 *  go (its connection failed first): the caller destroys the usual way. */
export type FireResult = string | null;

/** How long a disarmed command gets to end before its connection is handed back anyway. */
const DISARM_WAIT_MS = 2_000;

/** The go line: nothing secret (only this process writes to the command's stdin). */
const GO = 'go';

/** `script` run once a go line arrives on stdin; end of input runs nothing. */
export function armedScript(script: string): string {
  return `IFS= read -r go || exit 0\n[ "$go" = ${GO} ] || exit 0\n${script}`;
}

class ArmedDestroy {
  private shell: NodeShell | null = null;
  private channel: ExecChannel | null = null;
  private hasExited = false;
  private out = '';
  private readonly ready: Promise<boolean>;

  /** `nonce`: the one `script` marks its answer with. */
  constructor(
    readonly nonce: string,
    shell: Promise<NodeShell>,
    script: string,
  ) {
    this.ready = shell.then(
      (s) => {
        this.shell = s;
        const ch = s.exec(armedScript(script));
        ch.stdin.on('error', () => {}); // a channel gone before the go: fire says null
        ch.stdout.on('data', (c: Buffer) => (this.out += c.toString('utf8')));
        ch.stderr.resume();
        void ch.exit.then(
          () => (this.hasExited = true),
          () => (this.hasExited = true),
        );
        this.channel = ch;
        return true;
      },
      () => false,
    );
  }

  /** Sends the go and resolves with what the command printed once it exited. */
  async fire(signal: AbortSignal): Promise<FireResult> {
    if (!(await this.ready) || !this.channel || this.hasExited) {
      void this.release();
      return null;
    }
    const ch = this.channel;
    const onAbort = () => ch.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      ch.stdin.end(`${GO}\n`);
      await ch.exit; // settles, never rejects (ExecChannel)
      return this.out;
    } finally {
      signal.removeEventListener('abort', onAbort);
      void this.release();
    }
  }

  /** Ends the command without the go (it exits having done nothing), behind the caller: a
   *  process that closes never waits on a connection that stopped answering. */
  disarm(): void {
    void this.ready.then(async (isOpen) => {
      if (!isOpen || !this.channel) return;
      this.channel.stdin.end();
      await within(this.channel.exit, DISARM_WAIT_MS);
      await this.release();
    });
  }

  private async release(): Promise<void> {
    const s = this.shell;
    this.shell = null;
    await s?.close().catch(() => {});
  }
}

/** The armed destroys of one provider, one per lease label. */
export class ArmedDestroys {
  private readonly armed = new Map<string, ArmedDestroy>();
  /** Ends a connection still being made for one when the provider closes. */
  private readonly closing = new AbortController();

  /** Opens `script` on a shell from `connect`, ready for `take(label)`; a second arm of
   *  the same label keeps the first. */
  arm(
    label: string,
    nonce: string,
    script: string,
    connect: (signal: AbortSignal) => Promise<NodeShell>,
  ): void {
    if (this.armed.has(label) || this.closing.signal.aborted) return;
    this.armed.set(label, new ArmedDestroy(nonce, connect(this.closing.signal), script));
  }

  /** The armed destroy of `label`, taken out (fired once at most). */
  take(label: string): ArmedDestroy | undefined {
    const a = this.armed.get(label);
    this.armed.delete(label);
    return a;
  }

  disarmAll(): void {
    this.closing.abort(new Error('the provider closed'));
    for (const a of this.armed.values()) a.disarm();
    this.armed.clear();
  }
}
