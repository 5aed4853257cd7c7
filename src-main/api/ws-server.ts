import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { commands, events, type CommandName, type EventName } from '../contract/commands';
import type { EventBus } from '../base/event-bus';
import type { Handlers } from '../contract/handlers';
import { dispatch } from './dispatch';
import { WS_PATH, type WsRequest, type WsServerMessage } from '../contract/ws-protocol';

/** What web mode serves: the contract's handlers and its events. */
export interface ServedCore {
  handlers: Handlers;
  bus: EventBus;
}

export interface WebServer {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

/** A client this far behind gets no more log batches until it catches up; it reads what it
 *  missed from the datastream by seq (every record carries one), so nothing is lost. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/**
 * Web mode (`tender serve`): the renderer bundle and the contract over a WebSocket, bound to
 * 127.0.0.1 only. A random session token is in the URL printed at start; the WebSocket
 * upgrade and every message must carry it, and a page of another Origin is refused. No logic
 * of its own: requests go through the same `dispatch` as IPC and the in-process client.
 */
export async function startWebServer(
  core: ServedCore,
  opts: { port?: number; rendererDir: string },
): Promise<WebServer> {
  const token = randomBytes(24).toString('base64url');
  const server = createServer((req, res) => serveStatic(opts.rendererDir, req, res));
  const port = await listen(server, opts.port ?? 0);
  const origins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  const wss = new WebSocketServer({ noServer: true, maxPayload: 8 * 1024 * 1024 });
  const clients = new Set<WebSocket>();

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const refuse = (status: number, why: string) => {
      socket.end(`HTTP/1.1 ${status} ${why}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (url.pathname !== WS_PATH) return refuse(404, 'Not Found');
    if (!origins.has(req.headers.origin ?? '')) return refuse(403, 'Forbidden Origin');
    if (!sameToken(url.searchParams.get('token'), token)) return refuse(401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws));
  });

  wss.on('connection', (ws) => {
    clients.add(ws);
    ws.on('close', () => clients.delete(ws));
    ws.on('error', () => clients.delete(ws));
    ws.on('message', (data) => void onMessage(ws, String(data)));
  });

  async function onMessage(ws: WebSocket, text: string): Promise<void> {
    let req: WsRequest;
    try {
      req = JSON.parse(text) as WsRequest;
    } catch {
      return; // not JSON: nothing to answer
    }
    const id = typeof req.id === 'number' ? req.id : -1;
    if (!sameToken(req.token, token)) {
      return send(ws, {
        id,
        result: {
          ok: false,
          error: { code: 'bad_request', message: 'missing or wrong session token' },
        },
      });
    }
    if (!(req.command in commands)) {
      return send(ws, {
        id,
        result: {
          ok: false,
          error: { code: 'bad_request', message: `unknown command "${String(req.command)}"` },
        },
      });
    }
    send(ws, { id, result: await dispatch(core.handlers, req.command as CommandName, req.input) });
  }

  const offs = (Object.keys(events) as EventName[]).map((topic) =>
    core.bus.on(topic, (payload) => {
      const isLogs = topic === 'log.lines';
      for (const ws of clients) {
        if (isLogs && ws.bufferedAmount > MAX_BUFFERED_BYTES) continue;
        send(ws, { event: topic, payload });
      }
    }),
  );

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    async close() {
      for (const off of offs) off();
      for (const ws of clients) ws.terminate();
      wss.close();
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
    },
  };
}

function send(ws: WebSocket, msg: WsServerMessage): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
}

function sameToken(given: unknown, token: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

/** The renderer bundle. Its files are public code: the token guards the contract, not these. */
function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  let rel = decodeURIComponent(url.pathname);
  if (rel === '/' || !extname(rel)) rel = '/index.html';
  const file = normalize(join(root, rel));
  if (!file.startsWith(normalize(root) + sep) || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, {
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Cache-Control': rel === '/index.html' ? 'no-store' : 'max-age=3600',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  res.end(readFileSync(file));
}
