/** What a drop carries, as far as finding a local path goes (a DataTransfer fits). */
export interface DropData {
  readonly types: readonly string[];
  getData(type: string): string;
}

/**
 * The absolute local path a drop names, in web mode: Linux file managers send
 * `text/uri-list` (file:///abs/path, percent-encoded); a path dragged or pasted as text comes
 * as `text/plain`. Null when the drop names no local path (a browser cannot see a dropped
 * folder's path otherwise; the desktop app asks its preload instead).
 */
export function pathFromDrop(data: DropData): string | null {
  if (data.types.includes('text/uri-list')) {
    const uri = data
      .getData('text/uri-list')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l && !l.startsWith('#'));
    const path = uri ? pathFromFileUri(uri) : null;
    if (path) return path;
  }
  if (data.types.includes('text/plain')) {
    const text = data.getData('text/plain').trim().split(/\r?\n/)[0]?.trim() ?? '';
    if (text.startsWith('file://')) return pathFromFileUri(text);
    if (text.startsWith('/') || text.startsWith('~/')) return text;
  }
  return null;
}

/** file:///a/b%20c → /a/b c; file://localhost/a → /a. Other hosts are not this machine. */
export function pathFromFileUri(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== 'file:') return null;
  if (url.hostname && url.hostname !== 'localhost') return null;
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
}

/** A path that names a job file rather than a workspace folder. */
export function isJobFile(path: string): boolean {
  // A SkyPilot task or a dstack configuration (.yaml, .yml, .dstack.yml) loads converted.
  return /(^|\/)[^/]*\.(toml|ya?ml)$/i.test(path.replace(/\/+$/, ''));
}
