import type {
  CommandInput,
  CommandName,
  CommandOutput,
  EventName,
  EventPayload,
  Result,
} from '../../src-main/contract';
import { WS_PATH, type WsRequest, type WsServerMessage } from '../../src-main/contract/ws-protocol';
import type { TenderApi } from '../tender-api';

export type ConnectionState = 'connecting' | 'open' | 'closed';

const TOKEN_KEY = 'tender.token';

/** The session token: from the URL the server printed (then removed from the address bar so
 *  it is not shared by a screenshot or a copied link), or from this tab's session storage on
 *  a reload. */
export function sessionToken(): string | null {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    window.sessionStorage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return window.sessionStorage.getItem(TOKEN_KEY);
}

/**
 * window.tender for web mode: the contract over one WebSocket, reconnecting with backoff.
 * A request made while the socket is down waits for it (up to `requestTimeoutMs`); events
 * resume on reconnect, and `onReconnect` lets the caller refetch what it may have missed.
 */
export class WsTenderApi implements TenderApi {
  private ws: WebSocket | null = null;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (r: Result<unknown>) => void; timer: ReturnType<typeof setTimeout> }
  >();
  private readonly queue: string[] = [];
  private readonly handlers = new Map<string, Set<(payload: unknown) => void>>();
  private readonly stateListeners = new Set<(s: ConnectionState) => void>();
  private state: ConnectionState = 'connecting';
  private retryMs = 250;
  private closed = false;
  private everOpened = false;

  constructor(
    private readonly token: string,
    private readonly opts: { requestTimeoutMs?: number; onReconnect?: () => void } = {},
  ) {
    this.open();
  }

  invoke<C extends CommandName>(
    command: C,
    input: CommandInput<C>,
  ): Promise<Result<CommandOutput<C>>> {
    const id = this.nextId++;
    const msg: WsRequest = { id, token: this.token, command, input };
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({
          ok: false,
          error: {
            code: 'infrastructure',
            message: 'Tender did not answer: is `tender serve` still running?',
          },
        } as Result<CommandOutput<C>>);
      }, this.opts.requestTimeoutMs ?? 120_000);
      this.pending.set(id, { resolve: resolve as (r: Result<unknown>) => void, timer });
      const text = JSON.stringify(msg);
      if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(text);
      else this.queue.push(text);
    });
  }

  on<E extends EventName>(topic: E, handler: (payload: EventPayload<E>) => void): () => void {
    let set = this.handlers.get(topic);
    if (!set) this.handlers.set(topic, (set = new Set()));
    const h = handler as (payload: unknown) => void;
    set.add(h);
    return () => set.delete(h);
  }

  /** A GET of the serving machine with the session token in the Authorization header (not
   *  the URL): web mode's output downloads. */
  fetchWithToken(path: string): Promise<Response> {
    return fetch(path, { headers: { Authorization: `Bearer ${this.token}` }, cache: 'no-store' });
  }

  onState(listener: (s: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    listener(this.state);
    return () => this.stateListeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    this.ws?.close();
  }

  private setState(s: ConnectionState): void {
    this.state = s;
    for (const l of this.stateListeners) l(s);
  }

  private open(): void {
    const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(
      `${proto}//${window.location.host}${WS_PATH}?token=${encodeURIComponent(this.token)}`,
    );
    this.ws = ws;
    ws.onopen = () => {
      this.retryMs = 250;
      this.setState('open');
      for (const text of this.queue.splice(0)) ws.send(text);
      if (this.everOpened) this.opts.onReconnect?.();
      this.everOpened = true;
    };
    ws.onmessage = (e) => this.onMessage(String(e.data));
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.setState(this.closed ? 'closed' : 'connecting');
      if (this.closed) return;
      setTimeout(() => this.open(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 5_000);
    };
  }

  private onMessage(text: string): void {
    let msg: WsServerMessage;
    try {
      msg = JSON.parse(text) as WsServerMessage;
    } catch {
      return;
    }
    if ('id' in msg) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      p.resolve(msg.result as Result<unknown>);
      return;
    }
    for (const h of this.handlers.get(msg.event) ?? []) h(msg.payload);
  }
}
