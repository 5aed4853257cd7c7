import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { pageCsp } from './page-csp';
import { hostRefusal, isAllowedHost, parseTarget } from './web-guard';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** Headers on every answer of web mode: the page's CSP (its WebSocket is the one place it
 *  may connect to besides its origin), no framing by any page (CSP and the older header),
 *  no MIME sniffing, no Referer carrying the address out, no use of our files by pages of
 *  another origin. */
export function pageHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': pageCsp({
      connect: [`ws://127.0.0.1:${port}`, `ws://localhost:${port}`],
    }),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

/** The renderer bundle. Its files are public code: the token guards the contract, not these.
 *  Never throws on input: whatever the request, it gets an answer. */
export function serveStatic(
  root: string,
  port: number,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const headers = pageHeaders(port);
  const answer = (status: number, text: string, extra: Record<string, string> = {}): void =>
    void res
      .writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', ...extra })
      .end(text);
  if (!isAllowedHost(req.headers.host, port))
    return answer(421, hostRefusal(req.headers.host, port));
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return answer(405, 'only GET and HEAD\n', { Allow: 'GET, HEAD' });
  const target = parseTarget(req.url);
  if (!target) return answer(400, 'malformed request path\n');
  const rel = target.path === '/' || !extname(target.path) ? '/index.html' : target.path;
  const file = normalize(join(root, rel));
  let body: Buffer;
  try {
    if (!file.startsWith(normalize(root) + sep) || !statSync(file).isFile()) throw new Error();
    body = readFileSync(file);
  } catch {
    return answer(404, 'not found\n');
  }
  res.writeHead(200, {
    ...headers,
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Cache-Control': rel === '/index.html' ? 'no-store' : 'max-age=3600',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
