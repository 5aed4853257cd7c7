import type {
  AgentLogRecord,
  OpName,
  Ops,
  PhaseState,
  TeardownRecord,
} from '../../src-agent/wire/protocol';
import type { NodeShell } from '../transport/node-shell';
import { AgentClient, LinkClosedError } from './agent-client';
import { agentCommand, type AgentAddress } from './node-layout';

export type LinkState = 'connecting' | 'connected' | 'lost' | 'closed';

export interface AgentLinkDeps {
  connect(signal: AbortSignal): Promise<NodeShell>;
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

  /** A shell to the node for bulk channels (workspace push, output pull). */
  async bulkShell(): Promise<NodeShell> {
    await this.connected;
    return this.deps.connect(this.abort.signal);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    this.client?.close('link closed by Tender');
    void this.shell?.close();
    this.deps.onState('closed', 'closed');
  }

  private resetConnected(): void {
    this.connected = new Promise((r) => (this.resolveConnected = r));
  }

  private async loop(): Promise<void> {
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
    const shell = await this.deps.connect(this.abort.signal);
    this.shell = shell;
    let onClose!: (reason: string) => void;
    const closedPromise = new Promise<string>((r) => (onClose = r));
    const client = AgentClient.open(shell, agentCommand(this.deps.address, 'attach'), {
      onLog: (records) => this.deps.onRecords(records),
      onPhase: (state) => this.deps.onPhase(state),
      onTeardown: (record) => this.deps.onTeardown?.(record),
      onClose: (reason) => onClose(reason),
    });
    try {
      const hello = await client.request('hello', {}, HELLO_TIMEOUT_MS);
      if (hello.teardown) this.deps.onTeardown?.(hello.teardown);
      await client.request('subscribe', { fromSeq: this.deps.fromSeq() });
      // Phases that changed while nobody was attached.
      const status = await client.request('status', {});
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
