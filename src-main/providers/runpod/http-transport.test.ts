// The GraphQL transport against a real HTTP server on 127.0.0.1 that answers what each test
// scripts: retries, unknown outcomes, GraphQL errors inside a 200, and where the key goes.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { RunpodApiError } from './errors';
import { checkBaseUrl, GraphqlTransport } from './http-transport';

type Script = (
  req: IncomingMessage,
  body: string,
) => { status: number; body: string; headers?: Record<string, string> };
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

const KEY = 'rpa_SECRETSECRETSECRET';
const seen: { url: string; auth: string | undefined; body: string }[] = [];

async function serve(script: Script): Promise<string> {
  seen.length = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', auth: req.headers.authorization, body });
      const a = script(req, body);
      res.writeHead(a.status, { 'Content-Type': 'application/json', ...a.headers });
      res.end(a.body);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  return `http://127.0.0.1:${addr.port}`;
}

const transport = (baseUrl: string) =>
  new GraphqlTransport({
    baseUrl,
    apiKey: KEY,
    retry: { baseDelayMs: 5, maxDelayMs: 20, deadlineMs: 2_000 },
    requestTimeoutMs: 1_000,
  });
const signal = new AbortController().signal;
const read = { query: 'query { myself { id } }', idempotent: true, what: 'list pods' };
const create = {
  query: 'mutation M($input: X!) { podFindAndDeployOnDemand(input: $input) { id } }',
  variables: { input: { name: 'n' } },
  idempotent: false,
  what: 'create pod n',
};

describe('GraphqlTransport', () => {
  it('POSTs {query, variables} to /graphql with the key as a Bearer header only', async () => {
    const url = await serve(() => ({ status: 200, body: '{"data":{"myself":{"id":"u"}}}' }));
    expect(await transport(url).request(create, signal)).toEqual({ myself: { id: 'u' } });
    expect(seen[0]).toMatchObject({ url: '/graphql', auth: `Bearer ${KEY}` });
    expect(JSON.parse(seen[0]!.body)).toEqual({ query: create.query, variables: create.variables });
  });

  it('retries 429s (honouring Retry-After) and 5xx of a read', async () => {
    let n = 0;
    const url = await serve(() =>
      n++ === 0
        ? { status: 429, body: 'Too Many Requests', headers: { 'Retry-After': '0.05' } }
        : n === 2
          ? { status: 503, body: '<html><title>busy</title></html>' }
          : { status: 200, body: '{"data":{"ok":true}}' },
    );
    expect(await transport(url).request(read, signal)).toEqual({ ok: true });
    expect(n).toBe(3);
  });

  it('never repeats a create after a 5xx: outcome unknown', async () => {
    const url = await serve(() => ({ status: 500, body: 'Internal Server Error' }));
    const err = await transport(url)
      .request(create, signal)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunpodApiError);
    expect((err as RunpodApiError).opts.outcomeUnknown).toBe(true);
    expect((err as Error).message).toMatch(/look the label up/);
    expect(seen).toHaveLength(1);
  });

  it('a GraphQL error inside a 200 is final; no capacity is marked', async () => {
    const url = await serve(() => ({
      status: 200,
      body: JSON.stringify({
        errors: [
          {
            message:
              'There are no longer any instances available with the requested specifications. Please refresh and try again.',
          },
        ],
        data: { podFindAndDeployOnDemand: null },
      }),
    }));
    const err = (await transport(url)
      .request(create, signal)
      .catch((e: unknown) => e)) as RunpodApiError;
    expect(err.opts).toMatchObject({ noCapacity: true });
    expect(seen).toHaveLength(1);
  });

  it('a 401 is fatal and never carries the key, even when the server echoes it', async () => {
    const url = await serve(() => ({
      status: 401,
      body: JSON.stringify({ errors: [{ message: `bad key ${KEY}` }] }),
    }));
    const err = (await transport(url)
      .request(read, signal)
      .catch((e: unknown) => e)) as RunpodApiError;
    expect(err.opts.fatal).toBe(true);
    expect(err.message).not.toContain(KEY);
  });

  it('allows plain http only to this machine, and no credentials in the URL', () => {
    expect(checkBaseUrl('https://api.runpod.io/')).toBe('https://api.runpod.io');
    expect(checkBaseUrl('https://api.runpod.io/graphql')).toBe('https://api.runpod.io');
    expect(checkBaseUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(() => checkBaseUrl('http://api.runpod.io')).toThrow(/must be https/);
    expect(() => checkBaseUrl('https://api.runpod.io/?api_key=x')).toThrow(
      /credentials or a query/,
    );
    expect(() => new GraphqlTransport({ baseUrl: 'https://api.runpod.io', apiKey: ' ' })).toThrow(
      /no RunPod API key/,
    );
  });
});
