// The HTTP face of the fake on 127.0.0.1: which key a call carries, the wire faults
// (latency, 429 storms), routing, and a record of every call — 401s and 429s included — so
// tests can count calls per endpoint and see which key did what.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFakeHttpServer } from '../fake-http-server';
import { takeHold, takeRateLimit } from './faults';
import type { VastMarket } from './market';
import { ApiFailure, INVALID_KEY, json, type Reply, text } from './reply';
import type { Caller, Route } from './route';

export type KeyUsed = 'account' | 'instance' | 'invalid' | 'none';

export interface CallRecord {
  seq: number;
  /** Fake-clock ms at arrival. */
  at: number;
  method: string;
  /** Path without the query. */
  path: string;
  query: Record<string, string>;
  /** Parsed JSON body (or the raw text when it was not JSON); undefined when empty. */
  body: unknown;
  status: number;
  key: KeyUsed;
  /** The instance whose CONTAINER_API_KEY was used, for `key: 'instance'`. */
  keyInstanceId: number | null;
  /** A handler's unexpected exception, for debugging a failing test. */
  error?: string;
}

/** rate-limits-and-errors.mdx: "often plain text", no Retry-After unless a daily quota. */
export const RATE_LIMIT_TEXT = 'API requests too frequent: endpoint threshold=2.0';

export interface FakeServer {
  url: string;
  calls: CallRecord[];
  close(): Promise<void>;
}

export async function startServer(
  market: VastMarket,
  accountApiKey: string,
  routes: Route[],
): Promise<FakeServer> {
  const calls: CallRecord[] = [];
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake.vast');
    const rawBody = await readBody(req);
    const { key, keyInstanceId } = classifyKey(req, url, market, accountApiKey);
    const call: CallRecord = {
      seq: calls.length + 1,
      at: market.clock.now(),
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: parseLoosely(rawBody),
      status: 0,
      key,
      keyInstanceId,
    };
    calls.push(call);
    if (market.faults.latencyMs > 0) await sleep(market.faults.latencyMs);
    await takeHold(market.faults, call);
    let reply: Reply;
    try {
      reply = await dispatch(call, url, rawBody);
    } catch (err) {
      if (!(err instanceof ApiFailure)) call.error = (err as Error).stack ?? String(err);
      reply = err instanceof ApiFailure ? err.reply : text(500, 'Internal Server Error');
    }
    call.status = reply.status;
    send(res, reply);
  }

  async function dispatch(call: CallRecord, url: URL, rawBody: string): Promise<Reply> {
    if (takeRateLimit(market.faults, call)) return text(429, RATE_LIMIT_TEXT);
    const onPath = routes.filter((r) => r.path.test(call.path));
    const route = onPath.find((r) => r.method === call.method);
    if (!route) return onPath.length ? text(405, 'Method Not Allowed') : text(404, 'Not Found');
    const params = { ...route.path.exec(call.path)!.groups };
    if (call.key === 'none' || call.key === 'invalid') return INVALID_KEY;
    let caller: Caller = { kind: 'account' };
    if (call.key === 'instance') {
      const isOwn =
        route.instanceParam !== undefined &&
        Number(params[route.instanceParam]) === call.keyInstanceId;
      if (!isOwn)
        return json(403, {
          success: false,
          error: 'forbidden',
          msg: `This API key is scoped to instance ${call.keyInstanceId}; it cannot ${call.method} ${call.path}`,
        });
      caller = { kind: 'instance', instanceId: call.keyInstanceId! };
    }
    let body: unknown;
    if (rawBody.trim() !== '') {
      try {
        body = JSON.parse(rawBody);
      } catch {
        return json(400, {
          success: false,
          error: 'invalid_args',
          msg: `error 400/1782: Invalid args: invalid json: ${rawBody.slice(0, 200)}`,
        });
      }
    }
    await market.sync();
    return route.handle({ market, params, query: url.searchParams, body, caller, accountApiKey });
  }

  const server = await startFakeHttpServer(handle);
  return { url: server.url, calls, close: () => server.close() };
}

function classifyKey(
  req: IncomingMessage,
  url: URL,
  market: VastMarket,
  accountApiKey: string,
): { key: KeyUsed; keyInstanceId: number | null } {
  const auth = req.headers.authorization;
  // vast.py sends the key both ways: `Authorization: Bearer …` and `?api_key=…`.
  const given = auth?.startsWith('Bearer ')
    ? auth.slice(7).trim()
    : url.searchParams.get('api_key');
  if (!given) return { key: 'none', keyInstanceId: null };
  if (given === accountApiKey) return { key: 'account', keyInstanceId: null };
  for (const inst of market.instances.values())
    if (inst.apiKey === given && inst.destroyedAt === null)
      return { key: 'instance', keyInstanceId: inst.id };
  return { key: 'invalid', keyInstanceId: null };
}

function send(res: ServerResponse, reply: Reply): void {
  const isJson = reply.kind === 'json';
  const payload = isJson ? JSON.stringify(reply.body) : reply.body;
  res.writeHead(reply.status, {
    'Content-Type': isJson ? 'application/json' : 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseLoosely(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
