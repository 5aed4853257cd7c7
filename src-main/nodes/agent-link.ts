import type {
  AgentLogRecord,
  HelloResult,
  OpName,
  Ops,
  PhaseState,
  TeardownRecord,
} from '../../src-agent/wire/protocol';
import { within } from '../base/within';
import type { NodeShell } from '../transport/node-shell';
import { type AgentClient, LinkClosedError } from './agent-client';
import { attachTo } from './agent-attach';
import type { AgentAddress } from './node-layout';

export type LinkState = 'connecting' | 'connected' | 'lost' | 'closed';

export interface AgentLinkDeps {
  /** A connection for bulk channels (and for control, without `connectControl`). */
  connect(signal: AbortSignal): Promise<NodeShell>;
  /** A connection for the control channel: one it may share with other light users
   *  (transport/shell-pool.ts). */
  connectControl?(signal: AbortSignal): Promise<NodeShell>;
  address: AgentAddress;
  /** The first agent seq not yet stored: resume the log stream from here. */
  fromSeq(): number;
  onRecords(records: AgentLogRecord[]): void;
  onPhase(state: PhaseState): void;
  /** The node's dead-man switch fired (told live, or found in hello on a reconnect). */
  onTeardown?(record: TeardownRecord): void;
  onState(state: LinkState, detail: string): void;
}

const BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000, 10_000];
const HELLO_TIMEOUT_MS = 15_000;
/** A spare bulk connection older than this is not trusted (a sleep, a NAT timeout) and
 *  is replaced by a fresh one. */
const SPARE_MAX_AGE_MS = 30_000;

/** The long-lived control channel to a joined agent (the `attach` channel). When it
 *  drops it reconnects with backoff and resumes the log stream from the last stored seq,
 *  so nothing is lost or repeated. The job keeps running on the node meanwhile. */
export class AgentLink {
  private client: AgentClient | null = null;
  private shell: NodeShell | null = null;
  private closed = false;
  private readonly abort = new AbortController();
  private connected!: Promise<AgentClient>;
  private resolveConnected!: (c: AgentClient) => void;
  private attempt = 0;
  /** The agent's hello on the current connection (null while none is up). */
  private hello: HelloResult | null = null;
  /** A bulk connection opened ahead of need, so a push or pull does not wait for a
   *  handshake: the next bulkShell() takes it and a new one is opened behind it. */
  private spare: { shell: Promise<NodeShell>; at: number } | null = null;
  /** The agent's socket could not be reached directly once: `attach` from then on. */
  private directRefused = false;

  constructor(private readonly deps: AgentLinkDeps) {
    this.resetConnected();
    void this.loop();
  }

  /** Sends a request once a connection is up; retried on a new connection if the link drops
   *  first. Every op the app sends is idempotent on the agent (start, configure, cancel). */
  async request<K extends OpName>(
    op: K,
    params: Ops[K]['params'],
    timeoutMs = 30_000,
  ): Promise<Ops[K]['result']> {
    for (;;) {
      if (this.closed) throw new LinkClosedError('the link was closed');
      const client = await this.connected;
      try {
        return await client.request(op, params, timeoutMs);
      } catch (err) {
        if (err instanceof LinkClosedError && !this.closed) continue;
        throw err;
      }
    }
  }

  /** A shell to the node for bulk channels (workspace push, output pull), beside the
   *  control connection so a big transfer never queues the agent's messages. Unless this
   *  is the `last`, one more is opened behind it for the next: its handshake is paid while
   *  the job does something else. */
  async bulkShell(opts: { beforeJoin?: boolean; last?: boolean } = {}): Promise<NodeShell> {
    const spare = this.spare;
    this.spare = null;
    const fresh = spare && Date.now() - spare.at < SPARE_MAX_AGE_MS;
    if (spare && !fresh) void spare.shell.then((s) => s.close()).catch(() => {});
    const shell = fresh ? spare.shell : this.deps.connect(this.abort.signal);
    // `beforeJoin`: for work that only prepares (nothing that changes the node), while
    // the control connection still handshakes.
    if (opts.beforeJoin) await shell;
    else await this.connected;
    if (this.closed) {
      void shell.then((s) => s.close()).catch(() => {});
      throw new LinkClosedError('the link was closed');
    }
    // `last`: no bulk transfer is expected soon after this one (the final collection; the
    // push of a job with nothing to collect): no spare behind it, whose handshake would
    // only cost CPU beside a short job and hold the process up at exit.
    if (!opts.last) this.prepareSpare();
    return shell;
  }

  /** Runs `work` on a bulk shell (`bulkShell`) and closes the shell after, whatever
   *  happens. */
  async withBulkShell<T>(
    work: (shell: NodeShell) => Promise<T>,
    opts: { last?: boolean } = {},
  ): Promise<T> {
    const shell = await this.bulkShell(opts);
    try {
      return await work(shell);
    } finally {
      await shell.close();
    }
  }

  /** Resolves with the agent's hello once a connection is up, or null after `timeoutMs`
   *  (a node that does not answer). */
  helloWithin(timeoutMs: number): Promise<HelloResult | null> {
    return within(
      this.connected.then(() => this.hello),
      timeoutMs,
    );
  }

  private prepareSpare(): void {
    if (this.closed || this.spare) return;
    const shell = this.deps.connect(this.abort.signal);
    shell.catch(() => {}); // a spare that fails is replaced when it is asked for
    this.spare = { shell, at: Date.now() };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    this.client?.close('link closed by Tender');
    void this.shell?.close();
    void this.spare?.shell.then((s) => s.close()).catch(() => {});
    this.spare = null;
    this.deps.onState('closed', 'closed');
  }

  private resetConnected(): void {
    this.connected = new Promise((r) => (this.resolveConnected = r));
  }

  private async loop(): Promise<void> {
    // No bulk connection is opened ahead of need here: a job's first push has its own
    // (an early push, or an early session opened beside this handshake), and a bulk
    // transfer opens one behind itself when another may follow (`bulkShell`).
    while (!this.closed) {
      const lost = await this.connectOnce().catch((err: Error) => err.message);
      if (this.closed) return;
      this.deps.onState('lost', lost);
      const delay = BACKOFF_MS[Math.min(this.attempt++, BACKOFF_MS.length - 1)]!;
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  /** Connects, resumes the log stream, and resolves with the reason when the link drops. */
  private async connectOnce(): Promise<string> {
    this.deps.onState('connecting', '');
    const connect = this.deps.connectControl ?? this.deps.connect;
    const shell = await connect(this.abort.signal);
    this.shell = shell;
    let onClose!: (reason: string) => void;
    const closedPromise = new Promise<string>((r) => (onClose = r));
    const handlers = {
      onLog: (records: AgentLogRecord[]) => this.deps.onRecords(records),
      onPhase: (state: PhaseState) => this.deps.onPhase(state),
      onTeardown: (record: TeardownRecord) => this.deps.onTeardown?.(record),
      onClose: (reason: string) => onClose(reason),
    };
    // A socket that could not be reached once is not asked again on this link.
    const socket = this.directRefused ? undefined : this.deps.address.socket;
    const { client, isDirectRefused } = await attachTo(shell, this.deps.address, socket, handlers);
    if (isDirectRefused) this.directRefused = true;
    // Asked together (one round trip, not three); the agent answers them in order.
    const asked = {
      hello: client.request('hello', {}, HELLO_TIMEOUT_MS),
      subscribe: client.request('subscribe', { fromSeq: this.deps.fromSeq() }),
      // Phases that changed while nobody was attached.
      status: client.request('status', {}),
    };
    for (const p of Object.values(asked)) p.catch(() => {}); // awaited below, in order
    try {
      const hello = await asked.hello;
      this.hello = hello;
      if (hello.teardown) this.deps.onTeardown?.(hello.teardown);
      await asked.subscribe;
      const status = await asked.status;
      for (const st of Object.values(status.phases)) if (st) this.deps.onPhase(st);
    } catch (err) {
      client.close();
      await shell.close();
      throw err;
    }
    this.client = client;
    this.attempt = 0;
    this.deps.onState('connected', '');
    this.resolveConnected(client);
    const reason = await closedPromise;
    this.resetConnected();
    this.client = null;
    await shell.close();
    return reason;
  }
}
