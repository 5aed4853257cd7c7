import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEditorUrl } from '../contract/editor-url';

/** Where the window's page comes from: the built renderer on disk, or (electron-vite dev)
 *  the Vite dev server named by ELECTRON_RENDERER_URL. Only this page may call the core. */
export type RendererSource =
  { kind: 'file'; indexPath: string } | { kind: 'dev'; url: string; origin: string };

export function rendererSource(devUrl: string | undefined, indexPath: string): RendererSource {
  if (devUrl) {
    const url = new URL(devUrl);
    if (url.protocol !== 'http:' || !isLoopback(url.hostname)) {
      throw new Error(
        `ELECTRON_RENDERER_URL must be an http:// address on this machine, not ${devUrl}`,
      );
    }
    return { kind: 'dev', url: devUrl, origin: url.origin };
  }
  return { kind: 'file', indexPath: resolve(indexPath) };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Whether a frame's URL is our page: the same index.html (any #hash or ?query) for the
 *  built renderer, the same origin for the dev server. */
export function isRendererUrl(
  url: string,
  source: RendererSource,
  platform = process.platform,
): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (source.kind === 'dev') return parsed.origin === source.origin;
  if (parsed.protocol !== 'file:' || (parsed.host !== '' && parsed.host !== 'localhost')) {
    return false;
  }
  parsed.hash = '';
  parsed.search = '';
  let path: string;
  try {
    path = fileURLToPath(parsed, { windows: platform === 'win32' });
  } catch {
    return false;
  }
  // Windows and macOS file systems ignore case; a differently cased URL is the same file.
  return platform === 'linux'
    ? path === source.indexPath
    : path.toLowerCase() === source.indexPath.toLowerCase();
}

/** Only https leaves the app for the browser: no file:, no custom schemes, no http. */
/** A port forward's address (docs/forwards.md): plain http to this machine's loopback,
 *  with a port. What a forward listens on, and nothing else on http. */
export function isForwardUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (
      u.protocol === 'http:' &&
      u.port !== '' &&
      isLoopback(u.hostname) &&
      u.username === '' &&
      u.password === ''
    );
  } catch {
    return false;
  }
}

export function isHttpsUrl(url: string): boolean {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

/** A node's editor link (`vscode://vscode-remote/ssh-remote+<alias>/<folder>`, Cursor's
 *  `cursor://…`): exactly the shape `editorUrl` builds, a Tender alias, nothing else of
 *  those schemes (no `vscode://file/…`, no extension URLs). */
export function isEditorUrl(url: string): boolean {
  const parsed = parseEditorUrl(url);
  return parsed !== null && parsed.alias.startsWith('tender-');
}
