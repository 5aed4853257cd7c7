import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { commands, events, type CommandName, type EventName } from '../contract/commands';
import type { EventBus } from '../base/event-bus';
import type { Handlers } from '../contract/handlers';
import { dispatch } from './dispatch';
import { serveOutputDownload, type OutputFileResolver } from './output-download';
import { WS_PATH, type WsRequest, type WsServerMessage } from '../contract/ws-protocol';
import { serveStatic } from './static-files';
import { hostRefusal, isAllowedHost, parseTarget, rawResponse } from './web-guard';

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

/**
 * Web mode (`tender serve`): the renderer bundle and the contract over a WebSocket, bound to
 * 127.0.0.1 only. A random session token is in the URL printed at start; the WebSocket
 * upgrade and every message must carry it, and a page of another Origin is refused. No logic
 * of its own: requests go through the same `dispatch` as IPC and the in-process client.
 */
export async function startWebServer(
  core: ServedCore,
  opts: { port?: number; rendererDir: string; outputs?: OutputFileResolver },
): Promise<WebServer> {
  const token = randomBytes(24).toString('base64url');
  // The port is known once listening; the handlers run only after that.
  let port = 0;
  const server = createServer((req, res) => {
    // Output downloads (api/output-download.ts checks Host and token, confines the path).
    if (opts.outputs && serveOutputDownload(req, res, { token, port }, opts.outputs)) return;
    serveStatic(opts.rendererDir, port, req, res);
  });
  // A request the parser refuses (a bad request line, oversize headers, a broken header)
  // never reaches the handlers: answer it and drop the connection, never the process.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    socket.end(
      rawResponse(
        tooLarge ? 431 : 400,
        tooLarge ? 'Request Header Fields Too Large' : 'Bad Request',
      ),
    );
  });
  port = await listen(server, opts.port ?? 0);
  const origins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  const wss = new WebSocketServer({ noServer: true, maxPayload: 8 * 1024 * 1024 });
  const clients = new Set<WebSocket>();

  server.on('upgrade', (req, socket, head) => {
    // After 'upgrade' the socket has no error listener of Node's: a peer that resets it
    // while we answer would otherwise throw from the socket's 'error' event.
    socket.on('error', () => socket.destroy());
    const refuse = (status: number, why: string, body = '') =>
      socket.end(rawResponse(status, why, body));
    if (!isAllowedHost(req.headers.host, port))
      return refuse(421, 'Misdirected Request', hostRefusal(req.headers.host, port));
    const target = parseTarget(req.url);
    if (!target) return refuse(400, 'Bad Request');
    if (target.path !== WS_PATH) return refuse(404, 'Not Found');
    if (!origins.has(req.headers.origin ?? '')) return refuse(403, 'Forbidden Origin');
    if (!sameToken(target.query.get('token'), token)) return refuse(401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws));
  });

  wss.on('connection', (ws) => {
    clients.add(ws);
    ws.on('close', () => clients.delete(ws));
    ws.on('error', () => clients.delete(ws));
    ws.on('message', (data) => void onMessage(ws, String(data)));
  });

  async function onMessage(ws: WebSocket, text: string): Promise<void> {
    let req: Partial<WsRequest>;
    try {
      req = JSON.parse(text) as Partial<WsRequest>;
    } catch {
      return; // not JSON: nothing to answer
    }
    if (typeof req !== 'object' || req === null) return; // JSON, but no request
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
    if (typeof req.command !== 'string' || !Object.hasOwn(commands, req.command)) {
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
