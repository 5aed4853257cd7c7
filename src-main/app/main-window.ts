import { BrowserWindow, shell } from 'electron';
import {
  isEditorUrl,
  isForwardUrl,
  isHttpsUrl,
  isRendererUrl,
  type RendererSource,
} from './trusted-urls';

/** The one window: our page only, sandboxed, isolated, no Node; nothing it does can load
 *  another page or open a window. */
export function createMainWindow(preloadPath: string, source: RendererSource): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 560,
    title: 'Tender',
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win.show());
  const wc = win.webContents;
  wc.setWindowOpenHandler(({ url }) => {
    // A link to the web (docs, a provider's console) opens in the browser, never in here;
    // so does a port forward's (TensorBoard on http://127.0.0.1:16006).
    if (isHttpsUrl(url) || isForwardUrl(url) || isEditorUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  // A dropped file or a stray link must not replace the app; a dev-server reload may.
  // A node's "Open in VS Code" link is a plain link (as in web mode): the editor opens it.
  wc.on('will-navigate', (e) => {
    if (isEditorUrl(e.url)) void shell.openExternal(e.url);
    if (!(source.kind === 'dev' && isRendererUrl(e.url, source))) e.preventDefault();
  });
  wc.on('will-redirect', (e) => {
    if (!isRendererUrl(e.url, source)) e.preventDefault();
  });
  wc.on('will-attach-webview', (e) => e.preventDefault());
  return win;
}

export async function loadRenderer(win: BrowserWindow, source: RendererSource): Promise<void> {
  if (source.kind === 'dev') await win.loadURL(source.url);
  else await win.loadFile(source.indexPath);
}

/** Brings the window to the front, restoring it if minimized or hidden. */
export function revealWindow(win: BrowserWindow | null): void {
  if (!win || win.isDestroyed()) return;
  if (win.isMinimized()) win.restore();
  if (!win.isVisible()) win.show();
  win.focus();
}
