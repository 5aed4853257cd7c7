import { freePort } from '../../../test/helpers/free-port';
import { afterEach, describe, expect, test } from 'vitest';
import { VastApiError } from './errors';
import { HttpTransport, type VastRequest } from './http-transport';
import { backoffDelay, DEFAULT_RETRY, verdictFor, withRetry, type Failure } from './retry';
import { fakeClock, ScriptedServer, type Handler } from './testing/scripted-server';

const KEY = 'k3y-0123456789abcdef';
const signal = () => new AbortController().signal;

describe('verdictFor', () => {
  const status = (s: number): Failure => ({ kind: 'status', status: s });
  const net = (code: string | null): Failure => ({ kind: 'network', code });
  test.each([
    ['429', 'retry', 'retry', status(429)],
    ['500', 'retry', 'outcome-unknown', status(500)],
    ['502', 'retry', 'outcome-unknown', status(502)],
    ['503', 'retry', 'outcome-unknown', status(503)],
    ['599', 'retry', 'outcome-unknown', status(599)],
    ['400', 'final', 'final', status(400)],
    ['401', 'final', 'final', status(401)],
    ['404', 'final', 'final', status(404)],
    ['410', 'final', 'final', status(410)],
    ['connection refused', 'retry', 'retry', net('ECONNREFUSED')],
    ['DNS failure', 'retry', 'retry', net('ENOTFOUND')],
    ['DNS try again', 'retry', 'retry', net('EAI_AGAIN')],
    ['host unreachable', 'retry', 'retry', net('EHOSTUNREACH')],
    ['connection reset', 'retry', 'outcome-unknown', net('ECONNRESET')],
    ['socket hang up', 'retry', 'outcome-unknown', net('UND_ERR_SOCKET')],
    ['unknown network error', 'retry', 'outcome-unknown', net(null)],
    ['timeout', 'retry', 'outcome-unknown', { kind: 'timeout' } as Failure],
  ])('%s: idempotent %s, create %s', (_n, idempotent, create, failure) => {
    expect(verdictFor(failure, true)).toBe(idempotent);
    expect(verdictFor(failure, false)).toBe(create);
  });
});

describe('backoffDelay', () => {
  const p = { baseDelayMs: 1000, maxDelayMs: 15_000, deadlineMs: 60_000 };
  test.each([
    [0, 0, 500],
    [0, 1, 1000],
    [1, 0, 1000],
    [2, 0.5, 3000],
    [3, 1, 8000],
    [4, 0, 7500], // capped at 15 s
    [40, 1, 15_000],
    [0, 7, 1000], // a random outside 0..1 is clamped
  ])('attempt %i, random %d → %i ms', (attempt, r, ms) => {
    expect(backoffDelay(attempt, p, () => r)).toBe(ms);
  });
});

describe('withRetry', () => {
  test('gives up when the next wait would pass the deadline', async () => {
    const clock = fakeClock();
    let attempts = 0;
    const run = withRetry(
      async () => {
        attempts++;
        return { ok: false, retryable: true, error: new Error('busy') };
      },
      {
        policy: { baseDelayMs: 1000, maxDelayMs: 8000, deadlineMs: 20_000 },
        clock,
        random: () => 1,
        signal: signal(),
        giveUp: (last, n, ms) => new Error(`${last.message} after ${n} in ${ms}`),
      },
    );

    await expect(run).rejects.toThrow('busy after 5 in 15000');
    expect(attempts).toBe(5);
    expect(clock.slept).toEqual([1000, 2000, 4000, 8000]);
  });

  test('a final failure is thrown at once', async () => {
    const clock = fakeClock();
    const run = withRetry(async () => ({ ok: false, retryable: false, error: new Error('no') }), {
      policy: DEFAULT_RETRY,
      clock,
      random: () => 0,
      signal: signal(),
      giveUp: (e) => e,
    });

    await expect(run).rejects.toThrow('no');
    expect(clock.slept).toEqual([]);
  });
});

describe('HttpTransport against a real server', () => {
  let server: ScriptedServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  async function transport(
    handler: Handler,
    opts: { timeoutMs?: number; deadlineMs?: number } = {},
  ) {
    server = await ScriptedServer.start(handler);
    const clock = fakeClock();
    const http = new HttpTransport({
      baseUrl: `${server.url}/`,
      apiKey: KEY,
      requestTimeoutMs: opts.timeoutMs ?? 5_000,
      retry: { deadlineMs: opts.deadlineMs ?? 60_000 },
      clock,
      random: () => 0.5,
    });
    return { http, clock, server };
  }

  const get: VastRequest = {
    method: 'GET',
    path: '/api/v0/instances/',
    idempotent: true,
    what: 'list instances',
  };
  const create: VastRequest = {
    method: 'PUT',
    path: '/api/v0/asks/77/',
    body: { image: 'x' },
    idempotent: false,
    what: 'create instance on offer 77',
  };

  test('rides out a burst of 429s with plain-text bodies and no Retry-After', async () => {
    const { http, clock, server } = await transport((_r, n) =>
      n < 3 ? { status: 429, text: 'API requests too frequent' } : { json: { instances: [] } },
    );

    const res = await http.send(get, signal());

    expect(res.status).toBe(200);
    expect(server.requests).toHaveLength(4);
    expect(clock.slept).toEqual([750, 1500, 3000]);
  });

  test('retries 500s on a read, then answers', async () => {
    const { http, server } = await transport((_r, n) =>
      n < 2 ? { status: 500, text: 'Internal Server Error' } : { json: { ok: 1 } },
    );

    const res = await http.send(get, signal());

    expect(res.json).toEqual({ ok: 1 });
    expect(server.requests).toHaveLength(3);
  });

  test('gives up on endless 503s at the deadline, saying what happened', async () => {
    const { http, clock, server } = await transport(
      () => ({
        status: 503,
        contentType: 'text/html',
        text: '<title>503 Service Unavailable</title>',
      }),
      { deadlineMs: 10_000 },
    );

    const err = await http.send(get, signal()).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(VastApiError);
    expect((err as VastApiError).message).toMatch(
      /list instances failed: HTTP 503: 503 Service Unavailable \(an HTML page\) \(gave up after 4 attempts in 5 s\)/,
    );
    expect((err as VastApiError).opts.outcomeUnknown).toBeUndefined();
    expect(server.requests).toHaveLength(4);
    expect(clock.slept).toEqual([750, 1500, 3000]);
  });

  test('a read that times out is retried', async () => {
    const { http, server } = await transport((_r, n) => (n === 0 ? { hang: true } : { json: [] }), {
      timeoutMs: 150,
    });

    const res = await http.send(get, signal());

    expect(res.json).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  test('a create that times out is outcomeUnknown and never sent twice', async () => {
    const { http, server } = await transport(() => ({ hang: true }), { timeoutMs: 150 });

    const err = await http.send(create, signal()).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200)); // room for a (wrong) second attempt

    expect(err).toBeInstanceOf(VastApiError);
    expect((err as VastApiError).opts.outcomeUnknown).toBe(true);
    expect((err as VastApiError).message).toMatch(/no answer within 150 ms.*look the label up/);
    expect(server.requests).toHaveLength(1);
  });

  test('a create answered 500 is outcomeUnknown, not retried', async () => {
    const { http, server } = await transport(() => ({ status: 500, json: { msg: 'db timeout' } }));

    const err = (await http.send(create, signal()).catch((e: unknown) => e)) as VastApiError;

    expect(err.opts.outcomeUnknown).toBe(true);
    expect(err.message).toContain('HTTP 500: db timeout');
    expect(server.requests).toHaveLength(1);
  });

  test('a create whose connection drops mid-request is outcomeUnknown', async () => {
    const { http, server } = await transport(() => ({ drop: true }));

    const err = (await http.send(create, signal()).catch((e: unknown) => e)) as VastApiError;

    expect(err.opts.outcomeUnknown).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  test('a create turned away by the rate limiter is retried (it never ran)', async () => {
    const { http, server } = await transport((_r, n) =>
      n === 0
        ? { status: 429, text: 'API requests too frequent' }
        : { json: { success: true, new_contract: 5 } },
    );

    const res = await http.send(create, signal());

    expect(res.json).toEqual({ success: true, new_contract: 5 });
    expect(server.requests).toHaveLength(2);
  });

  test('a caller abort during a create is outcomeUnknown; during a read it is not', async () => {
    const { http } = await transport(() => ({ hang: true }));
    const a = new AbortController();
    const b = new AbortController();
    setTimeout(() => {
      a.abort(new Error('run cancelled'));
      b.abort(new Error('run cancelled'));
    }, 50);

    const [onCreate, onRead] = (await Promise.all([
      http.send(create, a.signal).catch((e: unknown) => e),
      http.send(get, b.signal).catch((e: unknown) => e),
    ])) as VastApiError[];

    expect(onCreate!.opts.outcomeUnknown).toBe(true);
    expect(onCreate!.message).toContain('cancelled: run cancelled');
    expect(onRead!.opts.outcomeUnknown).toBeUndefined();
  });

  test('401: one request, final, names TENDER_VASTAI_API_KEY', async () => {
    const { http, server } = await transport(() => ({
      status: 401,
      json: { success: false, error: 'auth_error', msg: 'Invalid user key' },
    }));

    const res = await http.send(get, signal());

    expect(res.status).toBe(401); // final answers are the caller's to read
    expect(server.requests).toHaveLength(1);
  });

  test('the key travels as a Bearer header only, and an echoed key is redacted', async () => {
    const { http, server } = await transport(() => ({ status: 400, text: `bad key ${KEY}` }));

    const res = await http.send({ ...get, query: { owner: 'me' } }, signal());

    expect(server.requests[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]!.url).toBe('/api/v0/instances/?owner=me');
    expect(server.requests[0]!.url).not.toContain(KEY);
    expect(res.text).toBe('bad key [redacted]');
  });

  test('connection refused is retried (nothing was sent), then reported without the key', async () => {
    const port = await freePort();
    const clock = fakeClock();
    const http = new HttpTransport({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: KEY,
      retry: { deadlineMs: 5_000 },
      clock,
      random: () => 0,
    });

    const err = (await http.send(create, signal()).catch((e: unknown) => e)) as VastApiError;

    expect(err.message).toMatch(/cannot reach Vast\.ai \(ECONNREFUSED\).*gave up after 4 attempts/);
    expect(err.opts.outcomeUnknown).toBeUndefined();
    expect(JSON.stringify(err) + err.message + (err.opts.hint ?? '')).not.toContain(KEY);
  });

  test.each([
    ['http to another host', 'http://example.com', /must be https/],
    ['not a URL', 'console.vast.ai', /not a URL/],
    ['credentials in the URL', 'https://u:p@console.vast.ai', /credentials/],
  ])('refuses a base URL: %s', (_n, baseUrl, message) => {
    expect(() => new HttpTransport({ baseUrl, apiKey: KEY })).toThrow(message);
  });

  test('refuses an empty key, naming the variable', () => {
    expect(() => new HttpTransport({ baseUrl: 'https://console.vast.ai', apiKey: ' ' })).toThrow(
      VastApiError,
    );
    try {
      new HttpTransport({ baseUrl: 'https://console.vast.ai', apiKey: '' });
    } catch (e) {
      expect((e as VastApiError).opts.hint).toContain('TENDER_VASTAI_API_KEY');
    }
  });
});
