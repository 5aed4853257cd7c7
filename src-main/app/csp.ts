import type { RendererSource } from './trusted-urls';

/** The Content-Security-Policy of the app's own page, sent as a response header. It adds to
 *  the meta tag in src-renderer/index.html (which also serves web mode and so allows a
 *  WebSocket to 127.0.0.1); a page obeys both, so in the app the stricter one wins.
 *
 *  - scripts: only the bundle's own files; no inline script, no eval;
 *  - styles: 'unsafe-inline' because React style props and xterm's renderer set inline styles;
 *  - connect: the page talks to the core over IPC, never the network;
 *  - dev only: Vite's inline React-refresh preamble and its HMR WebSocket. */
export function contentSecurityPolicy(source: RendererSource): string {
  const isDev = source.kind === 'dev';
  const hmrSocket = isDev ? source.origin.replace(/^http/, 'ws') : null;
  const directives: [string, ...string[]][] = [
    ['default-src', "'none'"],
    ['script-src', "'self'", ...(isDev ? ["'unsafe-inline'"] : [])],
    ['style-src', "'self'", "'unsafe-inline'"],
    ['img-src', "'self'", 'data:'],
    ['font-src', "'self'", 'data:'],
    ['connect-src', "'self'", ...(hmrSocket ? [hmrSocket] : [])],
    ['worker-src', "'self'"],
    ['object-src', "'none'"],
    ['base-uri', "'none'"],
    ['form-action', "'none'"],
    ['frame-ancestors', "'none'"],
  ];
  return directives.map((d) => d.join(' ')).join('; ');
}
