import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startWebServer, type WebServer } from '../../src-main/api/ws-server';
import type { WsServerMessage } from '../../src-main/contract/ws-protocol';
import { TenderCore } from '../../src-main/core/tender-core';
import { rawExchange } from '../helpers/raw-http';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(): Promise<{ core: TenderCore; server: WebServer; root: string }> {
  const root = mkdtempSync(join(tmpdir(), 'tender-web-'));
  const rendererDir = join(root, 'renderer');
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Tender</title>');
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(root, 'secret.txt'), 'not for the web');
  const core = TenderCore.open({ home: join(root, 'home'), env: {} });
  const server = await startWebServer(core, { rendererDir });
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  cleanups.push(() => core.close());
  cleanups.push(() => server.close());
  return { core, server, root };
}

/** Opens the socket as a page of `origin` would; resolves with the socket or the HTTP
 *  status the upgrade was refused with. */
function connect(url: string, origin: string): Promise<WebSocket | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { origin });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', () => resolve(-1));
  });
}

function ask(ws: WebSocket, msg: { id: number; [k: string]: unknown }): Promise<WsServerMessage> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const m = JSON.parse(String(data)) as WsServerMessage;
      if ('id' in m && m.id === msg.id) {
        ws.off('message', onMessage);
        resolve(m);
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify(msg));
  });
}

describe('web mode', () => {
  it('prints a 127.0.0.1 URL with a long random token', async () => {
    const { server } = await setup();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
  });

  it('serves the renderer bundle and nothing outside it', async () => {
    const { server } = await setup();
    const base = `http://127.0.0.1:${server.port}`;
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Tender</title>');
    expect((await fetch(`${base}/assets/app.js`)).headers.get('content-type')).toMatch(
      /javascript/,
    );
    expect((await fetch(`${base}/..%2Fsecret.txt`)).status).toBe(404);
    expect((await fetch(`${base}/assets/..%2F..%2Fsecret.txt`)).status).toBe(404);
  });

  it('sends the page with a CSP that forbids framing, sniffing and referrers', async () => {
    const { server } = await setup();
    for (const path of ['/', '/assets/app.js', '/missing.js']) {
      const h = (await fetch(`http://127.0.0.1:${server.port}${path}`)).headers;
      const csp = h.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain(
        `connect-src 'self' ws://127.0.0.1:${server.port} ws://localhost:${server.port};`,
      );
      expect(csp).not.toContain('unsafe-eval');
      expect(h.get('x-frame-options')).toBe('DENY');
      expect(h.get('x-content-type-options')).toBe('nosniff');
      expect(h.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('answers only to its loopback names: another Host is refused with the address to open', async () => {
    const { server } = await setup();
    const p = server.port;
    const page = (host: string) => rawExchange(p, `GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect((await page(`127.0.0.1:${p}`)).status).toBe(200);
    expect((await page(`localhost:${p}`)).status).toBe(200);
    const rebound = await page(`attacker.example:${p}`);
    expect(rebound.status).toBe(421);
    expect(rebound.text).toContain(`answers only to http://127.0.0.1:${p}/`);
    expect(rebound.text).not.toContain('<title>Tender</title>');
    // The socket too, even with the token and a matching Origin (a rebound page's own).
    const upgrade = await rawExchange(
      p,
      [
        `GET /ws?token=${server.token} HTTP/1.1`,
        `Host: attacker.example:${p}`,
        `Origin: http://attacker.example:${p}`,
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        '',
        '',
      ].join('\r\n'),
    );
    expect(upgrade.status).toBe(421);
  });

  it('serves GET and HEAD only', async () => {
    const { server } = await setup();
    const base = `http://127.0.0.1:${server.port}/`;
    const head = await fetch(base, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const post = await fetch(base, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers contract commands over the socket and pushes events', async () => {
    const { server, core } = await setup();
    const origin = `http://127.0.0.1:${server.port}`;
    const ws = await connect(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, origin);
    if (typeof ws === 'number') throw new Error(`refused: ${ws}`);
    cleanups.push(() => ws.close());
    const status = await ask(ws, { id: 1, token: server.token, command: 'status.get', input: {} });
    expect(status).toMatchObject({ id: 1, result: { ok: true, value: { runs: [], leases: [] } } });
    // Input is parsed at the boundary like every other transport.
    const bad = await ask(ws, { id: 2, token: server.token, command: 'run.get', input: {} });
    expect(bad).toMatchObject({ id: 2, result: { ok: false, error: { code: 'bad_request' } } });
    const unknown = await ask(ws, { id: 3, token: server.token, command: 'rm -rf', input: {} });
    expect(unknown).toMatchObject({ result: { ok: false, error: { code: 'bad_request' } } });

    const event = new Promise<unknown>((resolve) =>
      ws.once('message', (d) => resolve(JSON.parse(String(d)))),
    );
    core.bus.emit('log.lines', { records: [] });
    expect(await event).toEqual({ event: 'log.lines', payload: { records: [] } });
  });

  it('refuses a socket without the token, with a wrong token, or from another Origin', async () => {
    const { server } = await setup();
    const own = `http://127.0.0.1:${server.port}`;
    const ws = `ws://127.0.0.1:${server.port}/ws`;
    expect(await connect(ws, own)).toBe(401);
    expect(await connect(`${ws}?token=${'x'.repeat(32)}`, own)).toBe(401);
    expect(await connect(`${ws}?token=${server.token}`, 'http://evil.example')).toBe(403);
    expect(await connect(`${ws}?token=${server.token}`, 'http://127.0.0.1:1')).toBe(403);
    expect(await connect(`ws://127.0.0.1:${server.port}/other?token=${server.token}`, own)).toBe(
      404,
    );
    const localhost = await connect(
      `${ws}?token=${server.token}`,
      `http://localhost:${server.port}`,
    );
    expect(localhost).toBeInstanceOf(WebSocket);
    (localhost as WebSocket).close();
  });

  it('refuses every message that does not carry the token, even on an open socket', async () => {
    const { server } = await setup();
    const ws = await connect(
      `ws://127.0.0.1:${server.port}/ws?token=${server.token}`,
      `http://127.0.0.1:${server.port}`,
    );
    if (typeof ws === 'number') throw new Error(`refused: ${ws}`);
    cleanups.push(() => ws.close());
    const none = await ask(ws, { id: 7, command: 'status.get', input: {} });
    expect(none).toMatchObject({
      id: 7,
      result: { ok: false, error: { message: 'missing or wrong session token' } },
    });
    const wrong = await ask(ws, { id: 8, token: 'nope', command: 'status.get', input: {} });
    expect(wrong).toMatchObject({ result: { ok: false } });
  });
});
