// What web mode checks of a request before it looks at anything else: a target it can parse
// and a Host that names this machine. Pure: no I/O, so every branch is a table row.

/** A request's target, parsed. null: not a target this server can read (a malformed
 *  percent-encoding, an unparseable absolute URL, a NUL byte); the caller answers 400. */
export interface RequestTarget {
  /** The decoded path, always starting with `/`. */
  path: string;
  query: URLSearchParams;
}

export function parseTarget(raw: string | undefined): RequestTarget | null {
  try {
    const url = new URL(raw ?? '/', 'http://127.0.0.1');
    const path = decodeURIComponent(url.pathname);
    if (path.includes('\0') || !path.startsWith('/')) return null;
    return { path, query: url.searchParams };
  } catch {
    return null;
  }
}

/** The names this server answers to: the loopback names with its port. A browser sends the
 *  name it resolved in Host, so a page of another site whose name was re-pointed at
 *  127.0.0.1 (DNS rebinding) sends its own name and is refused. Port 80 may be left out. */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const h = host.toLowerCase();
  const names = ['127.0.0.1', 'localhost'];
  return names.some((n) => h === `${n}:${port}` || (port === 80 && h === n));
}

/** Why a request with a foreign Host is refused, naming the fix. */
export function hostRefusal(host: string | undefined, port: number): string {
  const named = host === undefined ? 'no Host' : `Host "${host.slice(0, 200)}"`;
  return (
    `tender serve answers only to http://127.0.0.1:${port}/ and http://localhost:${port}/ ` +
    `(this request named ${named}); open the address \`tender serve\` printed.\n`
  );
}

/** A minimal HTTP/1.1 answer written straight to a socket (the upgrade path and client
 *  errors have no ServerResponse). Closes the connection. */
export function rawResponse(status: number, reason: string, body = ''): string {
  const bytes = Buffer.byteLength(body);
  return (
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${bytes}\r\n\r\n${body}`
  );
}
