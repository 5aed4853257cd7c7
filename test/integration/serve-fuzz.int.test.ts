// `tender serve` under a bounded fuzz of malformed input, sent by raw sockets to the built
// CLI's own process: request lines, URLs, percent-encodings, headers, oversize headers, bad
// upgrades, resets mid-request, and junk on an open WebSocket. The process must answer or
// close each one, never die, and afterwards still serve the app page and a live session.
// Before the fix, `GET /%E0%A4%A` alone ended the process (URIError in the request listener).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { WsServerMessage } from '../../src-main/contract/ws-protocol';
import { CliProcess, killLeftovers, requireBuilt, tempHome } from '../helpers/cli';
import { rawExchange } from '../helpers/raw-http';

let serve: CliProcess;
let port: number;
let token: string;
let temp: ReturnType<typeof tempHome>;

beforeAll(async () => {
  requireBuilt();
  temp = tempHome('tender-serve-fuzz-');
  serve = new CliProcess(['serve'], { home: temp.home });
  await serve.waitFor('stdout', /^Tender web UI: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+\n/);
  const m = /127\.0\.0\.1:(\d+)\/\?token=(\S+)/.exec(serve.stdout)!;
  port = Number(m[1]);
  token = m[2]!;
});

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  killLeftovers(temp.home);
  temp.cleanup();
});

const host = () => `Host: 127.0.0.1:${port}`;
const origin = () => `Origin: http://127.0.0.1:${port}`;
const upgrade = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13';
const key = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==';
const get = (target: string, ...headers: string[]) =>
  [`GET ${target} HTTP/1.1`, host(), ...headers, '', ''].join('\r\n');

/** Each case: what is sent, and the statuses it may be answered with (null: the server
 *  closed without a word). Every case then checks that the process is still there. */
const cases: [name: string, bytes: () => string | Buffer, allowed: (number | null)[]][] = [
  ['truncated UTF-8 escape', () => get('/%E0%A4%A'), [400]],
  ['lone percent', () => get('/%'), [400]],
  ['non-hex escape', () => get('/%zz/x.js'), [400]],
  ['overlong UTF-8', () => get('/%C0%AF'), [400]],
  ['NUL in the path', () => get('/a%00b.js'), [400]],
  ['unparseable absolute URL', () => get('http://[zz'), [400]],
  ['absolute URL with a bad port', () => get('http://a:99999/'), [400]],
  // Both resolve to /etc/passwd under the bundle: no extension, so the app page is served.
  ['encoded traversal', () => get('/%2e%2e/%2e%2e/etc/passwd'), [200]],
  ['backslash traversal', () => get('/..\\..\\etc\\passwd'), [200]],
  ['encoded slash traversal', () => get('/assets/..%2F..%2F..%2Fetc%2Fpasswd.js'), [404]],
  ['asterisk form', () => get('*'), [200, 400, 404]],
  ['100 KB path', () => get(`/${'a'.repeat(100_000)}.js`), [400, 404, 414, 431]],
  ['unknown method', () => `FOO / HTTP/1.1\r\n${host()}\r\n\r\n`, [400, 405]],
  ['POST', () => `POST / HTTP/1.1\r\n${host()}\r\nContent-Length: 3\r\n\r\nabc`, [405]],
  ['CONNECT', () => `CONNECT 127.0.0.1:22 HTTP/1.1\r\n${host()}\r\n\r\n`, [null, 400]],
  ['HTTP/9.9', () => `GET / HTTP/9.9\r\n${host()}\r\n\r\n`, [null, 400, 505]],
  ['HTTP/0.9 request line', () => 'GET /\r\n\r\n', [null, 400, 421]],
  ['garbage request line', () => 'hello there\r\n\r\n', [null, 400]],
  ['binary junk', () => Buffer.from([0, 1, 2, 0xff, 0xfe, 13, 10, 13, 10]), [null, 400]],
  ['bare LF line ends', () => `GET / HTTP/1.1\n${host()}\n\n`, [null, 200, 400]],
  ['only blank lines', () => '\r\n'.repeat(1000), [null, 400]],
  ['no Host', () => 'GET / HTTP/1.1\r\n\r\n', [400, 421]],
  [
    'foreign Host (DNS rebinding)',
    () => `GET / HTTP/1.1\r\nHost: evil.example:${port}\r\n\r\n`,
    [421],
  ],
  [
    'two Hosts (Node keeps the first)',
    () => get('/', `Host: evil.example:${port}`),
    [200, 400, 421],
  ],
  ['header without a colon', () => get('/', 'no colon here'), [400]],
  ['NUL in a header', () => get('/', 'X-A: b\0c'), [400]],
  ['space before the colon', () => get('/', 'X-A : b'), [400]],
  ['two Content-Lengths', () => get('/', 'Content-Length: 1', 'Content-Length: 2'), [400]],
  ['negative Content-Length', () => get('/', 'Content-Length: -1'), [400]],
  ['bad chunk', () => get('/', 'Transfer-Encoding: chunked') + 'zz\r\nabc\r\n', [200, 400]],
  ['20 KB header', () => get('/', `X-Big: ${'b'.repeat(20_000)}`), [431]],
  [
    '3000 headers',
    () => get('/', ...Array.from({ length: 3000 }, (_, i) => `X-${i}: v`)),
    [200, 431],
  ],
  ['cut off mid-headers', () => `GET / HTTP/1.1\r\n${host()}\r\nX-Half: ab`, [null, 400]],
  ['upgrade, malformed path', () => get('/%E0%A4%A', upgrade, key, origin()), [400]],
  ['upgrade, unparseable URL', () => get('http://[zz', upgrade, key, origin()), [400]],
  ['upgrade, malformed token', () => get('/ws?token=%E0%A4%A', upgrade, key, origin()), [400, 401]],
  ['upgrade, no token', () => get('/ws', upgrade, key, origin()), [401]],
  [
    'upgrade, foreign Origin',
    () => get(`/ws?token=${token}`, upgrade, key, 'Origin: http://evil.example'),
    [403],
  ],
  [
    'upgrade, junk Origin',
    () => get(`/ws?token=${token}`, upgrade, key, 'Origin: \x7f\x01'),
    [400, 403],
  ],
  [
    'upgrade, foreign Host',
    () =>
      `GET /ws?token=${token} HTTP/1.1\r\nHost: evil.example\r\n${upgrade}\r\n${key}\r\n${origin()}\r\n\r\n`,
    [421],
  ],
  ['upgrade, no key', () => get(`/ws?token=${token}`, upgrade, origin()), [400]],
  [
    'upgrade, bad version',
    () => get(`/ws?token=${token}`, upgrade.replace('13', '99'), key, origin()),
    [400, 426],
  ],
  [
    'upgrade, bad extensions',
    () =>
      get(
        `/ws?token=${token}`,
        upgrade,
        key,
        origin(),
        'Sec-WebSocket-Extensions: permessage-deflate; =;;',
      ),
    [101, 400], // the server offers no extensions, so ws may ignore the header
  ],
  [
    'upgrade accepted, then junk frames',
    () => get(`/ws?token=${token}`, upgrade, key, origin()) + '\xff\xff\xff\xff junk',
    [101],
  ],
];

const resetCases: [name: string, bytes: () => string][] = [
  ['reset mid-request', () => `GET /ind`],
  ['reset mid-headers', () => `GET / HTTP/1.1\r\n${host()}\r\nX-A: `],
  ['reset after an upgrade it refuses', () => get('/ws', upgrade, key, origin())],
  ['reset after an upgrade it accepts', () => get(`/ws?token=${token}`, upgrade, key, origin())],
];

function alive(): void {
  expect(serve.child.exitCode, serve.stderr.slice(-2000)).toBeNull();
  expect(serve.child.signalCode).toBeNull();
}

function session(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, {
      origin: `http://127.0.0.1:${port}`,
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function ask(ws: WebSocket, id: number, command: string): Promise<WsServerMessage> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const m = JSON.parse(String(data)) as WsServerMessage;
      if ('id' in m && m.id === id) {
        ws.off('message', onMessage);
        resolve(m);
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, token, command, input: {} }));
  });
}

describe('tender serve under malformed input', () => {
  it.each(cases)('%s: answered or closed, and still up', async (_name, bytes, allowed) => {
    const answer = await rawExchange(port, bytes());
    expect(allowed, answer.text.slice(0, 300)).toContain(answer.status);
    alive();
  });

  it.each(resetCases)('%s: still up', async (_name, bytes) => {
    await rawExchange(port, bytes(), { reset: true });
    alive();
  });

  it('junk on an open session is ignored or refused, and the session still answers', async () => {
    const ws = await session();
    for (const junk of [
      'null',
      '1',
      '"x"',
      '[]',
      '{',
      '{"id":"x"}',
      JSON.stringify({ id: 1, token, command: 'toString', input: {} }),
      JSON.stringify({ id: 2, token, command: '__proto__' }),
      JSON.stringify({ id: 3, token, command: 7 }),
    ])
      ws.send(junk);
    expect(await ask(ws, 4, 'status.get')).toMatchObject({ id: 4, result: { ok: true } });
    expect(await ask(ws, 5, 'constructor')).toMatchObject({
      result: { ok: false, error: { code: 'bad_request' } },
    });
    // A frame over the 8 MiB limit closes this socket (1009), not the server.
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.send('x'.repeat(9 * 1024 * 1024));
    expect(await closed).toBe(1009);
    // Invalid UTF-8 in a text frame (1007), likewise.
    const ws2 = await session();
    const closed2 = new Promise<number>((r) => ws2.once('close', (code) => r(code)));
    ws2.send(Buffer.from([0xc3, 0x28]), { binary: false });
    expect(await closed2).toBe(1007);
    alive();
  });

  it('afterwards serves the app page and a live session', async () => {
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const ws = await session();
    expect(await ask(ws, 1, 'status.get')).toMatchObject({
      id: 1,
      result: { ok: true, value: { runs: [], leases: [] } },
    });
    ws.close();
    alive();
    expect(serve.stderr).not.toMatch(/\n\s+at /); // no stack trace printed on the way
  });
});
