import { app, BrowserWindow, dialog, session } from 'electron';
import { join } from 'node:path';
import { TenderCore } from '../core/tender-core';
import { serveContract } from './ipc-bridge';

// One Tender per user: a second launch focuses the first window instead.
if (!app.requestSingleInstanceLock()) app.quit();

let core: TenderCore | null = null;
let win: BrowserWindow | null = null;

async function createWindow(): Promise<void> {
  core = TenderCore.open({ home: process.env.TENDER_HOME ?? app.getPath('userData') });
  win = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'Tender',
    show: false,
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  serveContract(core, win);
  win.once('ready-to-show', () => win?.show());
  // Nothing but our own page is ever loaded in the window.
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  const devUrl = process.env.ELECTRON_RENDERER_URL;
  if (devUrl) await win.loadURL(devUrl);
  else await win.loadFile(join(import.meta.dirname, '../renderer/index.html'));
}

app.on('second-instance', () => {
  if (win) {
    if (win.isMinimized()) win.restore();
    win.focus();
  }
});

app.whenReady().then(async () => {
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  try {
    await createWindow();
  } catch (err) {
    dialog.showErrorBox('Tender could not start', (err as Error).message);
    app.quit();
  }
});

app.on('window-all-closed', () => {
  void core?.close().finally(() => app.quit());
});
