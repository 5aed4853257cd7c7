// A real HTTP server on 127.0.0.1 for the adapter's unit tests: each test scripts the
// answers, the server records every request. (The full fake Vast.ai lives in test/fakes/.)
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The raw path and query as received. */
  url: string;
  authorization: string | undefined;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

export interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
  contentType?: string;
  /** Never answer (until the server closes). */
  hang?: boolean;
  /** Drop the connection without answering. */
  drop?: boolean;
}

export type Handler = (req: Recorded, n: number) => Reply | Promise<Reply>;

export class ScriptedServer {
  readonly requests: Recorded[] = [];

  private constructor(
    private readonly server: Server,
    private handler: Handler,
  ) {}

  static async start(handler: Handler): Promise<ScriptedServer> {
    let self: ScriptedServer | null = null;
    const server = createServer((req, res) => void self?.serve(req, res));
    self = new ScriptedServer(server, handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  setHandler(handler: Handler): void {
    this.handler = handler;
  }

  /** Requests matching method and path prefix. */
  calls(method: string, pathPrefix = ''): Recorded[] {
    return this.requests.filter((r) => r.method === method && r.path.startsWith(pathPrefix));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // kept as text
    }
    const u = new URL(req.url ?? '/', 'http://x');
    const rec: Recorded = {
      method: req.method ?? '',
      path: u.pathname,
      query: u.searchParams,
      url: req.url ?? '',
      authorization: req.headers.authorization,
      body,
    };
    this.requests.push(rec);
    const reply = await this.handler(rec, this.requests.length - 1);
    if (reply.hang) return;
    if (reply.drop) return void req.socket.destroy();
    const payload = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
    res.writeHead(reply.status ?? 200, {
      'content-type':
        reply.contentType ?? (reply.json !== undefined ? 'application/json' : 'text/plain'),
    });
    res.end(payload);
  }
}

/** Sleeps that take no time but advance the clock, and remember what they were asked. */
export function fakeClock(start = 1_000_000): {
  now: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  slept: number[];
} {
  let t = start;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms, signal) => {
      if (signal.aborted) throw signal.reason as Error;
      slept.push(ms);
      t += ms;
    },
    slept,
  };
}
