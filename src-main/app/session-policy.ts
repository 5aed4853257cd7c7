import type { Session, WebContents } from 'electron';
import { contentSecurityPolicy } from './csp';
import { isRendererUrl, type RendererSource } from './trusted-urls';

// Clipboard writes (a "copy" button, the terminal's copy) are the one permission our page
// may use; nothing else is ever granted, to any page.
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write']);

/** What the session enforces for every page: our CSP on our page's documents, and no
 *  permissions beyond a clipboard write from our own window. */
export function installSessionPolicy(
  session: Session,
  source: RendererSource,
  isOurWindow: (wc: WebContents | null) => boolean,
): void {
  const csp = contentSecurityPolicy(source);
  session.webRequest.onHeadersReceived((details, callback) => {
    const isDocument = details.resourceType === 'mainFrame' || details.resourceType === 'subFrame';
    if (!isDocument || !isRendererUrl(details.url, source)) {
      callback({});
      return;
    }
    const headers = { ...details.responseHeaders };
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() === 'content-security-policy') delete headers[key];
    }
    callback({ responseHeaders: { ...headers, 'Content-Security-Policy': [csp] } });
  });
  session.setPermissionRequestHandler((wc, permission, callback) => {
    callback(ALLOWED_PERMISSIONS.has(permission) && isOurWindow(wc));
  });
  session.setPermissionCheckHandler(
    (wc, permission) => ALLOWED_PERMISSIONS.has(permission) && isOurWindow(wc),
  );
}
