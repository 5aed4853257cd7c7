// The HTTP face of the fake on 127.0.0.1: the key a call carries (Bearer or Basic), the
// wire faults (429 storms, the launch rate limit), routing under /api/v1, and a record of
// every call — 401s and 429s included — so tests can count calls per endpoint.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFakeHttpServer } from '../fake-http-server';
import type { LambdaCloud } from './cloud';
import { takeRateLimit } from './faults';
import {
  ApiFailure,
  apiError,
  data,
  INVALID_KEY,
  NOT_FOUND,
  RATE_LIMITED,
  text,
  type Reply,
} from './reply';

export type KeyUsed = 'bearer' | 'basic' | 'invalid' | 'none';

export interface CallRecord {
  seq: number;
  at: number;
  method: string;
  /** Path without the query. */
  path: string;
  /** Parsed JSON body (or the raw text when it was not JSON); undefined when empty. */
  body: unknown;
  status: number;
  key: KeyUsed;
  /** A handler's unexpected exception, for debugging a failing test. */
  error?: string;
}

export interface FakeServer {
  url: string;
  calls: CallRecord[];
  close(): Promise<void>;
}

type Handler = (
  cloud: LambdaCloud,
  params: Record<string, string>,
  body: unknown,
) => Promise<Reply>;

const ROUTES: { method: string; path: RegExp; handle: Handler }[] = [
  { method: 'GET', path: /^\/instance-types$/, handle: async (c) => data(c.instanceTypes()) },
  {
    method: 'GET',
    path: /^\/instances$/,
    handle: async (c) =>
      data(
        [...c.instances.values()].filter((i) => c.isListed(i, Date.now())).map((i) => c.view(i)),
      ),
  },
  {
    method: 'GET',
    path: /^\/instances\/(?<id>[^/]+)$/,
    handle: async (c, p) => {
      const inst = c.instances.get(p.id!);
      if (!inst || !c.isListed(inst, Date.now())) throw new ApiFailure(NOT_FOUND('instance'));
      return data(c.view(inst));
    },
  },
  {
    method: 'POST',
    path: /^\/instance-operations\/launch$/,
    handle: async (c, _p, body) => {
      if (c.isLaunchTooSoon(Date.now())) return RATE_LIMITED;
      const { inst, failWith } = await c.launch(body, Date.now());
      if (failWith !== null)
        return apiError(failWith, 'global/unknown', 'An unknown error occurred.');
      return data({ instance_ids: [inst.id] });
    },
  },
  {
    method: 'POST',
    path: /^\/instance-operations\/terminate$/,
    handle: async (c, _p, body) => data({ terminated_instances: c.terminate(body, Date.now()) }),
  },
  { method: 'GET', path: /^\/ssh-keys$/, handle: async (c) => data(c.keys.map((k) => ({ ...k }))) },
  { method: 'POST', path: /^\/ssh-keys$/, handle: async (c, _p, body) => data(c.addKey(body)) },
  {
    method: 'DELETE',
    path: /^\/ssh-keys\/(?<id>[^/]+)$/,
    handle: async (c, p) => {
      c.deleteKey(p.id!, Date.now());
      return data({});
    },
  },
];

export async function startServer(cloud: LambdaCloud, apiKey: string): Promise<FakeServer> {
  const calls: CallRecord[] = [];
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake.lambda');
    const raw = await readBody(req);
    const call: CallRecord = {
      seq: calls.length + 1,
      at: Date.now(),
      method: req.method ?? 'GET',
      path: url.pathname,
      body: parseLoosely(raw),
      status: 0,
      key: keyOf(req, apiKey),
    };
    calls.push(call);
    let reply: Reply;
    try {
      reply = await dispatch(call, raw);
    } catch (err) {
      if (!(err instanceof ApiFailure)) call.error = (err as Error).stack ?? String(err);
      reply =
        err instanceof ApiFailure
          ? err.reply
          : apiError(500, 'global/unknown', 'An unknown error occurred.');
    }
    call.status = reply.status;
    send(res, reply);
  }

  async function dispatch(call: CallRecord, raw: string): Promise<Reply> {
    if (!call.path.startsWith('/api/v1/')) return text(404, 'Not Found');
    const sub = call.path.slice('/api/v1'.length);
    const onPath = ROUTES.filter((r) => r.path.test(sub));
    const route = onPath.find((r) => r.method === call.method);
    if (!route) return onPath.length ? text(405, 'Method Not Allowed') : text(404, 'Not Found');
    if (call.key === 'none' || call.key === 'invalid') return INVALID_KEY;
    if (takeRateLimit(cloud.faults, call)) return RATE_LIMITED;
    let body: unknown;
    if (raw.trim() !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        return apiError(400, 'global/invalid-parameters', 'Request body is not valid JSON.');
      }
    }
    await cloud.sync(Date.now());
    return route.handle(cloud, { ...route.path.exec(sub)!.groups }, body);
  }

  const server = await startFakeHttpServer(handle);
  return { url: server.url, calls, close: () => server.close() };
}

/** openapi.yaml: `Authorization: Bearer <key>`, or HTTP Basic with the key as the user and
 *  no password (`curl -u KEY:`). */
function keyOf(req: IncomingMessage, apiKey: string): KeyUsed {
  const auth = req.headers.authorization ?? '';
  if (auth.startsWith('Bearer ')) return auth.slice(7).trim() === apiKey ? 'bearer' : 'invalid';
  if (auth.startsWith('Basic ')) {
    const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
    return decoded === `${apiKey}:` || decoded === apiKey ? 'basic' : 'invalid';
  }
  return auth ? 'invalid' : 'none';
}

function send(res: ServerResponse, reply: Reply): void {
  const isJson = reply.kind === 'json';
  const payload = isJson ? JSON.stringify(reply.body) : (reply.body as string);
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
