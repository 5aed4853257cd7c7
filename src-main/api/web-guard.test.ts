import { describe, expect, it } from 'vitest';
import { hostRefusal, isAllowedHost, parseTarget, rawResponse } from './web-guard';

describe('parseTarget', () => {
  it.each([
    ['/', '/'],
    ['/assets/app.js', '/assets/app.js'],
    ['/ws?token=abc', '/ws'],
    ['/a%20b.js', '/a b.js'],
    ['/..%2Fsecret.txt', '/../secret.txt'], // decoded: the static server's root check refuses it
    ['http://127.0.0.1:9/x.js', '/x.js'], // absolute form
    ['*', '/*'],
    [undefined, '/'],
  ])('%s reads as %s', (raw, path) => {
    expect(parseTarget(raw)?.path).toBe(path);
  });

  it.each([
    '/%E0%A4%A', // truncated UTF-8: decodeURIComponent throws URIError
    '/%',
    '/%zz',
    '/%C0%AF', // overlong encoding
    'http://[zz', // new URL throws TypeError
    'http://a:99999/',
    '/a%00b', // NUL
  ])('%s is refused, not thrown', (raw) => {
    expect(parseTarget(raw)).toBeNull();
  });

  it('keeps the query for the token', () => {
    expect(parseTarget('/ws?token=a%2Bb')?.query.get('token')).toBe('a+b');
  });
});

describe('isAllowedHost', () => {
  it.each([
    ['127.0.0.1:4000', 4000, true],
    ['localhost:4000', 4000, true],
    ['LOCALHOST:4000', 4000, true],
    ['127.0.0.1', 80, true],
    ['localhost', 80, true],
    ['127.0.0.1', 4000, false], // the port is part of the name a browser sends
    ['127.0.0.1:4001', 4000, false],
    ['evil.example:4000', 4000, false], // DNS rebinding: the attacker's name
    ['localhost.evil.example:4000', 4000, false],
    ['127.0.0.1:4000.evil.example', 4000, false],
    ['[::1]:4000', 4000, false], // the server listens on 127.0.0.1 only
    ['0.0.0.0:4000', 4000, false],
    ['', 4000, false],
    [undefined, 4000, false],
  ])('%s on port %i: %s', (host, port, allowed) => {
    expect(isAllowedHost(host, port)).toBe(allowed);
  });

  it('names the addresses to open and the host it saw, cut short', () => {
    const text = hostRefusal(`${'a'.repeat(500)}:1`, 4000);
    expect(text).toContain('http://127.0.0.1:4000/');
    expect(text).toContain('the address `tender serve` printed');
    expect(text.length).toBeLessThan(400);
    expect(hostRefusal(undefined, 4000)).toContain('no Host');
  });
});

describe('rawResponse', () => {
  it('is a complete HTTP/1.1 answer whose length counts bytes', () => {
    const r = rawResponse(421, 'Misdirected Request', 'é\n');
    expect(r.startsWith('HTTP/1.1 421 Misdirected Request\r\n')).toBe(true);
    expect(r).toContain('Content-Length: 3\r\n');
    expect(r.endsWith('\r\n\r\né\n')).toBe(true);
  });
});
