import type {
  AgentEvent,
  AgentLogRecord,
  OpName,
  Ops,
  PhaseState,
  ServerMessage,
  TeardownRecord,
} from '../../src-agent/wire/protocol';
import { MarkerScanner } from '../../src-agent/wire/marker';
import type { ExecChannel, NodeShell } from '../transport/node-shell';

export class AgentRequestError extends Error {
  constructor(
    readonly op: string,
    readonly code: string,
    message: string,
  ) {
    super(`agent ${op}: ${message}`);
    this.name = 'AgentRequestError';
  }
}

export class LinkClosedError extends Error {
  constructor(reason: string) {
    super(`agent link closed: ${reason}`);
    this.name = 'LinkClosedError';
  }
}

interface Pending {
  op: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout | null;
}

export interface AgentClientHandlers {
  onLog?: (records: AgentLogRecord[]) => void;
  onPhase?: (state: PhaseState) => void;
  /** The node's dead-man switch fired: it is tearing itself down. */
  onTeardown?: (record: TeardownRecord) => void;
  onClose?: (reason: string) => void;
}

/** One `attach` channel to an agent: newline-delimited JSON requests and events. Anything a
 *  login shell prints before the stream marker is skipped. */
export class AgentClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private carry = '';
  private closedReason: string | null = null;
  private stderrTail = '';

  private constructor(
    private readonly channel: ExecChannel,
    private readonly handlers: AgentClientHandlers,
    hasMarker = true,
  ) {
    const scanner = hasMarker ? new MarkerScanner() : null;
    channel.stdout.on('data', (chunk: Buffer) => {
      const rest = scanner ? scanner.push(chunk) : chunk;
      if (rest && rest.length > 0) this.onData(rest.toString('utf8'));
    });
    channel.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    channel.stdin.on('error', () => {});
    void channel.exit.then((st) => {
      const why =
        this.stderrTail.trim().split('\n').pop() ||
        (scanner ? `attach exited (code ${st.code ?? st.signal})` : "the agent's socket closed");
      this.shutdown(why);
    });
  }

  /** Execs `attachCommand` on the shell and returns the client at once; the first request
   *  fails if nothing answers. */
  static open(
    shell: NodeShell,
    attachCommand: string,
    handlers: AgentClientHandlers = {},
  ): AgentClient {
    return new AgentClient(shell.exec(attachCommand), handlers);
  }

  /** Speaks to the agent's socket directly (NodeShell.openSocket): nothing runs on the node
   *  for it, and no marker precedes the stream. */
  static overSocket(channel: ExecChannel, handlers: AgentClientHandlers = {}): AgentClient {
    return new AgentClient(channel, handlers, false);
  }

  get isClosed(): boolean {
    return this.closedReason !== null;
  }

  request<K extends OpName>(
    op: K,
    params: Ops[K]['params'],
    timeoutMs = 30_000,
  ): Promise<Ops[K]['result']> {
    if (this.closedReason !== null) return Promise.reject(new LinkClosedError(this.closedReason));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              this.pending.delete(id);
              reject(
                new AgentRequestError(
                  op,
                  'timeout',
                  `no answer in ${Math.round(timeoutMs / 1000)} s`,
                ),
              );
            }, timeoutMs)
          : null;
      this.pending.set(id, { op, resolve: resolve as (v: unknown) => void, reject, timer });
      this.channel.stdin.write(JSON.stringify({ id, op, ...params }) + '\n');
    });
  }

  close(reason = 'closed by Tender'): void {
    this.channel.stdin.end();
    this.channel.close();
    this.shutdown(reason);
  }

  private onData(text: string): void {
    this.carry += text;
    let nl: number;
    while ((nl = this.carry.indexOf('\n')) !== -1) {
      const line = this.carry.slice(0, nl);
      this.carry = this.carry.slice(nl + 1);
      if (line.trim()) this.onMessage(line);
    }
  }

  private onMessage(line: string): void {
    let msg: ServerMessage;
    try {
      msg = JSON.parse(line) as ServerMessage;
    } catch {
      return; // not protocol: ignore rather than die
    }
    if ('ev' in msg) return this.onEvent(msg);
    if (typeof msg.id !== 'number') return;
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (p.timer) clearTimeout(p.timer);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new AgentRequestError(p.op, msg.error.code, msg.error.message));
  }

  private onEvent(ev: AgentEvent): void {
    if (ev.ev === 'log') this.handlers.onLog?.(ev.records);
    else if (ev.ev === 'phase') this.handlers.onPhase?.(ev.state);
    else if (ev.ev === 'teardown') this.handlers.onTeardown?.(ev.record);
  }

  private shutdown(reason: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    for (const p of this.pending.values()) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new LinkClosedError(reason));
    }
    this.pending.clear();
    this.handlers.onClose?.(reason);
  }
}
