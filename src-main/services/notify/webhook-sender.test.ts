import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookBody } from './webhook-body';
import { sendWebhook } from './webhook-sender';

const body: WebhookBody = {
  text: 't completed — Run r-abc123 completed · $0.00',
  tender: {
    event: 'run.ended',
    key: 'run.ended:r-abc123:completed',
    runId: 'r-abc123',
    jobName: 't',
    status: 'completed',
    reason: null,
    costUsd: 0,
  },
};

/** A receiver on 127.0.0.1 that answers each POST with the next scripted status. */
async function receiver(script: (number | 'hang')[]) {
  const got: { body: string; type: string | undefined }[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      got.push({ body: text, type: req.headers['content-type'] });
      const next = script.shift() ?? 200;
      if (next === 'hang') return; // never answers
      res.writeHead(next, next === 302 ? { location: 'https://elsewhere.example/' } : {});
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T/B/token`;
  return { url, got };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const slept: number[] = [];
const instant = async (ms: number) => void slept.push(ms);
afterEach(() => void slept.splice(0));

describe('sendWebhook', () => {
  it('POSTs the body as JSON once when the receiver answers 2xx', async () => {
    const r = await receiver([204]);
    expect(await sendWebhook(r.url, body, { sleep: instant })).toEqual({ ok: true, attempts: 1 });
    expect(r.got).toEqual([{ body: JSON.stringify(body), type: 'application/json' }]);
  });

  it('retries a 500 with backoff, then succeeds', async () => {
    const r = await receiver([500, 503, 200]);
    expect(await sendWebhook(r.url, body, { sleep: instant })).toEqual({ ok: true, attempts: 3 });
    expect(r.got).toHaveLength(3);
    expect(slept).toEqual([500, 2_000]);
  });

  it('retries a 429 (rate limited)', async () => {
    const r = await receiver([429, 200]);
    expect(await sendWebhook(r.url, body, { sleep: instant })).toMatchObject({ ok: true });
  });

  it('gives up after the last retry, naming the origin and never the token in the path', async () => {
    const r = await receiver([500, 500, 500, 500, 500]);
    const out = await sendWebhook(r.url, body, { sleep: instant });
    expect(out).toEqual({
      ok: false,
      attempts: 4,
      error: `${new URL(r.url).origin} answered 500`,
    });
    expect(r.got).toHaveLength(4);
    expect(JSON.stringify(out)).not.toContain('token');
  });

  it('does not retry a 4xx: the request itself is wrong', async () => {
    const r = await receiver([404]);
    const out = await sendWebhook(r.url, body, { sleep: instant });
    expect(out).toMatchObject({ ok: false, attempts: 1, error: expect.stringMatching(/404$/) });
  });

  it('refuses a redirect instead of following it to a host nobody named', async () => {
    const r = await receiver([302]);
    const out = await sendWebhook(r.url, body, { sleep: instant });
    expect(out).toMatchObject({ ok: false, attempts: 1, error: expect.stringMatching(/redirect/) });
    expect(r.got).toHaveLength(1);
  });

  it('retries a refused connection, then gives up with the network error', async () => {
    const r = await receiver([]);
    await new Promise((res) => servers.pop()!.close(res)); // nothing listens there now
    const out = await sendWebhook(r.url, body, { sleep: instant, delaysMs: [1] });
    expect(out).toMatchObject({
      ok: false,
      attempts: 2,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
  });

  it('times out a receiver that never answers, and retries', async () => {
    const r = await receiver(['hang', 200]);
    const out = await sendWebhook(r.url, body, { sleep: instant, timeoutMs: 200 });
    expect(out).toEqual({ ok: true, attempts: 2 });
  });

  it('stops at once when Tender closes', async () => {
    const r = await receiver(['hang']);
    const closing = new AbortController();
    const sent = sendWebhook(r.url, body, { signal: closing.signal, timeoutMs: 60_000 });
    await expect.poll(() => r.got.length).toBe(1);
    closing.abort();
    expect(await sent).toMatchObject({
      ok: false,
      attempts: 1,
      error: expect.stringMatching(/Tender closed/),
    });
  });
});
