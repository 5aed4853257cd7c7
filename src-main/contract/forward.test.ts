import { describe, expect, it } from 'vitest';
import {
  ForwardSyntaxError,
  forwardLabel,
  forwardUrl,
  lastToken,
  notebookUrl,
  parseForwards,
  parsePortForward,
  parseRemoteForward,
  portInUseMessage,
  tokensIn,
} from './forward';

describe('parsePortForward', () => {
  it.each([
    [6006, { remotePort: 6006, localPort: null }],
    ['6006', { remotePort: 6006, localPort: null }],
    ['6006:16006', { remotePort: 6006, localPort: 16006 }],
    [' 8888:8889 ', { remotePort: 8888, localPort: 8889 }],
    ['6006:0', { remotePort: 6006, localPort: 0 }], // any free port
    [1, { remotePort: 1, localPort: null }],
    ['65535:65535', { remotePort: 65535, localPort: 65535 }],
  ])('%j', (value, want) => {
    expect(parsePortForward(value)).toEqual(want);
  });

  it.each([
    [0, 'the node port "0" is not a port from 1 to 65535'],
    [65536, 'the node port "65536" is not a port from 1 to 65535'],
    [60.5, 'the node port "60.5" is not a port from 1 to 65535'],
    ['0:16006', 'the node port "0" is not a port from 1 to 65535'],
    ['6006:70000', 'the local port "70000" is not a port from 0 to 65535'],
    ['6006:-1', 'the local port "-1" is not a port from 0 to 65535'],
    ['tensorboard', 'the node port "tensorboard" is not a port from 1 to 65535'],
    ['6006:', 'write NODE_PORT or NODE_PORT:LOCAL_PORT'],
    [':6006', 'write NODE_PORT or NODE_PORT:LOCAL_PORT'],
    ['1:2:3', 'write NODE_PORT or NODE_PORT:LOCAL_PORT'],
    ['', 'write NODE_PORT or NODE_PORT:LOCAL_PORT'],
  ])('refuses %j', (value, why) => {
    const err = (() => {
      try {
        parsePortForward(value);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ForwardSyntaxError);
    expect((err as Error).message).toContain(why);
    expect((err as Error).message).toContain(`forward ${JSON.stringify(String(value))}`);
  });
});

describe('parseRemoteForward', () => {
  it.each([
    ['5000:localhost:5000', { nodePort: 5000, host: 'localhost', localPort: 5000 }],
    ['5000:127.0.0.1:6000', { nodePort: 5000, host: '127.0.0.1', localPort: 6000 }],
    ['5000:[::1]:6000', { nodePort: 5000, host: '::1', localPort: 6000 }],
    ['5000:db.lan:5432', { nodePort: 5000, host: 'db.lan', localPort: 5432 }],
    ['5000:6000', { nodePort: 5000, host: 'localhost', localPort: 6000 }],
    ['5000', { nodePort: 5000, host: 'localhost', localPort: 5000 }],
  ])('%j', (value, want) => {
    expect(parseRemoteForward(value)).toEqual(want);
  });

  it.each([
    ['0:localhost:5000', 'the node port "0" is not a port'],
    ['5000:localhost:0', 'the local port "0" is not a port'],
    ['5000:localhost:99999', 'the local port "99999" is not a port'],
    ['5000:local host:5000', '"local host" is not a host name'],
    ['5000:-bad:5000', '"-bad" is not a host name'],
    ['5000:localhost', 'the local port "localhost" is not a port'],
    ['localhost:5000', 'write NODE_PORT:HOST:PORT'],
    ['', 'write NODE_PORT:HOST:PORT'],
  ])('refuses %j', (value, why) => {
    expect(() => parseRemoteForward(value)).toThrow(ForwardSyntaxError);
    expect(() => parseRemoteForward(value)).toThrow(why);
  });
});

describe('parseForwards', () => {
  it('reads both lists', () => {
    expect(parseForwards([6006, '8888:18888'], ['5000:localhost:5000'])).toEqual({
      local: [
        { remotePort: 6006, localPort: null },
        { remotePort: 8888, localPort: 18888 },
      ],
      remote: [{ nodePort: 5000, host: 'localhost', localPort: 5000 }],
    });
    expect(parseForwards([], [])).toEqual({ local: [], remote: [] });
    // Two forwards to any free port do not collide.
    expect(parseForwards(['6006:0', '8888:0'], []).local).toHaveLength(2);
  });

  it.each([
    [[6006, '6006:16006'], [], 'node port 6006 is forwarded twice (also by "6006")'],
    [['6006:16006', '7007:16006'], [], 'local port 16006 is taken twice (also by "6006:16006")'],
    [[16006, '6006:16006'], [], 'local port 16006 is taken twice (also by "16006")'],
    [[], ['5000:localhost:1', '5000:localhost:2'], 'node port 5000 is listened on twice'],
    [[6006, 'x'], [], 'forward "x"'],
    [[], ['5000:a b:1'], 'forward "5000:a b:1"'],
  ])('refuses %j %j', (ports, remote, why) => {
    expect(() => parseForwards(ports, remote)).toThrow(why);
  });
});

describe('names and messages', () => {
  it.each([
    [6006, 'TensorBoard'],
    [8888, 'Jupyter'],
    [8080, 'port 8080'],
  ])('forwardLabel(%i) = %s', (port, label) => {
    expect(forwardLabel(port)).toBe(label);
  });

  it('says where and what to do instead', () => {
    expect(forwardUrl(16006)).toBe('http://127.0.0.1:16006');
    expect(portInUseMessage(6006, 16006)).toBe(
      'local port 16006 is in use: pick another (6006:16007)',
    );
    expect(portInUseMessage(6006, 65535)).toContain('(6006:1024)');
  });
});

describe('tokens', () => {
  const hex48 = 'a3f1c2d4e5f60718293a4b5c6d7e8f901a2b3c4d5e6f7081';
  it.each([
    [`    http://127.0.0.1:8888/lab?token=${hex48}`, [{ port: 8888, token: hex48 }]],
    [`[I 12:00] http://node:8889/?token=${hex48} `, [{ port: 8889, token: hex48 }]],
    [`token=${hex48}`, [{ port: null, token: hex48 }]],
    [`see http://localhost/tree?token=${hex48}`, [{ port: null, token: hex48 }]],
    ['token=abc123', []], // too short
    [`xsrf_token=${hex48}`, []],
    [`TOKEN=${hex48.toUpperCase()}`, []],
    ['no token here', []],
    [
      `http://a:1/?token=${'1'.repeat(16)} and http://b:2/?x=1&token=${'2'.repeat(20)}`,
      [
        { port: 1, token: '1'.repeat(16) },
        { port: 2, token: '2'.repeat(20) },
      ],
    ],
  ])('%s', (line, want) => {
    expect(tokensIn(line)).toEqual(want);
  });

  it('the last one wins; with a port, one naming it or none', () => {
    const a = 'a'.repeat(32);
    const b = 'b'.repeat(32);
    const c = 'c'.repeat(32);
    const log = [
      `http://127.0.0.1:8888/?token=${a}`,
      'training…',
      `http://127.0.0.1:8888/?token=${b}`, // Jupyter restarted
      `http://127.0.0.1:9999/?token=${c}`, // another server
    ];
    expect(lastToken(log)).toBe(c);
    expect(lastToken(log, 8888)).toBe(b);
    expect(lastToken(log, 6006)).toBeNull();
    expect(lastToken([...log, `token=${a}`], 6006)).toBe(a);
    expect(lastToken([])).toBeNull();
  });
});

describe('notebookUrl', () => {
  const t = '3fa1b2c3d4e5f60718293a4b';
  it.each([
    [forwardUrl(18888), `http://127.0.0.1:18888/?token=${t}`],
    ['http://127.0.0.1:8888/', `http://127.0.0.1:8888/?token=${t}`],
    ['http://127.0.0.1:8888/lab', `http://127.0.0.1:8888/lab?token=${t}`],
    ['http://127.0.0.1:8888/lab?token=old', `http://127.0.0.1:8888/lab?token=${t}`],
    ['http://127.0.0.1:8888/tree?x=1', `http://127.0.0.1:8888/tree?x=1&token=${t}`],
  ])('%s', (address, url) => {
    expect(notebookUrl(address, t)).toBe(url);
  });
  it('a token that is not a plain word is escaped, never a second parameter', () => {
    expect(notebookUrl(forwardUrl(1), 'a&b=c')).toBe('http://127.0.0.1:1/?token=a%26b%3Dc');
  });
});
