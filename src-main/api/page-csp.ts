/** The Content-Security-Policy of Tender's own page: the desktop window's (app/csp.ts) and the
 *  page `tender serve` sends (api/static-files.ts) are this one policy, so a change reaches
 *  both. It adds to the meta tag in src-renderer/index.html; a page obeys both.
 *
 *  - scripts: only the bundle's own files; no inline script, no eval;
 *  - styles: 'unsafe-inline' because React style props and xterm's renderer set inline styles;
 *  - connect: the page's own origin, plus what the caller names (web mode: its WebSocket);
 *  - no frame may embed it (`frame-ancestors 'none'`: no clickjacking), no form posts, no
 *    plugins, no `<base>` rewriting. */
export function pageCsp(
  extra: { inlineScript?: boolean; connect?: readonly string[] } = {},
): string {
  const directives: [string, ...string[]][] = [
    ['default-src', "'none'"],
    ['script-src', "'self'", ...(extra.inlineScript ? ["'unsafe-inline'"] : [])],
    ['style-src', "'self'", "'unsafe-inline'"],
    ['img-src', "'self'", 'data:'],
    ['font-src', "'self'", 'data:'],
    ['connect-src', "'self'", ...(extra.connect ?? [])],
    ['worker-src', "'self'"],
    ['object-src', "'none'"],
    ['base-uri', "'none'"],
    ['form-action', "'none'"],
    ['frame-ancestors', "'none'"],
  ];
  return directives.map((d) => d.join(' ')).join('; ');
}
