import { call, describeError, subscribe } from '../../api/backend';

/** What a session needs of an xterm. */
export interface SessionTerminal {
  cols: number;
  rows: number;
  write(data: string | Uint8Array): void;
}

/**
 * A shell on a node over the contract: terminal.open, then output as `terminal.output`
 * events (base64 bytes) and keystrokes as `terminal.input`, one request at a time so they
 * arrive in order (typed while one is in flight, they are sent together next).
 */
export class TerminalSession {
  private id: string | null = null;
  private isClosed = false;
  private early: { terminalId: string; data: string }[] = [];
  private outbox = '';
  private isSending = false;
  private readonly offs: (() => void)[] = [];

  constructor(
    private readonly term: SessionTerminal,
    private readonly on: { exit(code: number | null): void; error(message: string): void },
  ) {}

  async open(nodeId: string): Promise<void> {
    // Output can come before terminal.open answers (the prompt): keep it until the id is known.
    this.offs.push(
      subscribe('terminal.output', (o) => {
        if (this.id === null) this.early.push(o);
        else if (o.terminalId === this.id) this.term.write(fromBase64(o.data));
      }),
      subscribe('terminal.exit', (e) => {
        if (e.terminalId !== this.id) return;
        this.id = null;
        this.on.exit(e.code);
      }),
    );
    try {
      const { terminalId } = await call('terminal.open', {
        nodeId,
        cols: this.term.cols,
        rows: this.term.rows,
        term: 'xterm-256color',
      });
      if (this.isClosed) {
        void call('terminal.close', { terminalId }).catch(() => {});
        return;
      }
      this.id = terminalId;
      for (const o of this.early.splice(0))
        if (o.terminalId === terminalId) this.term.write(fromBase64(o.data));
    } catch (err) {
      this.early = [];
      this.on.error(describeError(err));
    }
  }

  input(text: string): void {
    if (this.id === null) return;
    this.outbox += text;
    void this.flush();
  }

  resize(cols: number, rows: number): void {
    if (this.id === null) return;
    void call('terminal.resize', { terminalId: this.id, cols, rows }).catch(() => {});
  }

  get isOpen(): boolean {
    return this.id !== null;
  }

  close(): void {
    this.isClosed = true;
    for (const off of this.offs.splice(0)) off();
    if (this.id) void call('terminal.close', { terminalId: this.id }).catch(() => {});
    this.id = null;
  }

  private async flush(): Promise<void> {
    if (this.isSending) return;
    this.isSending = true;
    try {
      while (this.outbox && this.id !== null) {
        const data = toBase64(this.outbox);
        this.outbox = '';
        await call('terminal.input', { terminalId: this.id, data });
      }
    } catch (err) {
      this.on.error(describeError(err));
    } finally {
      this.isSending = false;
    }
  }
}

export function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export function fromBase64(data: string): Uint8Array {
  const bin = atob(data);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
