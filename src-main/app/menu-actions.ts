import { app, dialog, shell, type BrowserWindow } from 'electron';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MenuActions } from './app-menu';
import { MENU_CHANNEL, type MenuMessage } from './ipc-channels';
import { revealWindow } from './main-window';
import { messageBox } from './message-box';
import { isHttpsUrl } from './trusted-urls';

/** What the menu's items do, for the window `window()` and the data folder `home`. */
export function menuActions(window: () => BrowserWindow | null, home: string): MenuActions {
  const send = (msg: MenuMessage) => {
    const win = window();
    revealWindow(win);
    win?.webContents.send(MENU_CHANNEL, msg);
  };
  const open = async (path: string) => {
    const error = await shell.openPath(path);
    if (error) {
      await messageBox(window(), {
        type: 'error',
        message: `Could not open ${path}`,
        detail: error,
      });
    }
  };
  const examples = examplesFolder();
  const docs = docsUrl();
  return {
    showView: (view) => send({ kind: 'show', view }),
    openJob: () =>
      void pickJobFile(window()).then((path) => path && send({ kind: 'open-job', path })),
    openDataFolder: () => void open(home),
    openExamples: examples ? () => void open(examples) : null,
    openDocs: docs ? () => void shell.openExternal(docs) : null,
    isDev: !app.isPackaged,
  };
}

async function pickJobFile(win: BrowserWindow | null): Promise<string | null> {
  const options: Electron.OpenDialogOptions = {
    title: 'Open a tender.toml',
    properties: ['openFile'],
    filters: [{ name: 'Tender job', extensions: ['toml'] }],
  };
  const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
  return r.canceled ? null : (r.filePaths[0] ?? null);
}

/** resources/examples: beside the app when packaged (electron-builder extraResources). */
function examplesFolder(): string | null {
  const dir = app.isPackaged
    ? join(process.resourcesPath, 'examples')
    : join(app.getAppPath(), 'resources', 'examples');
  return existsSync(dir) ? dir : null;
}

/** package.json's `homepage`, when it is an https address: nothing else leaves the app. */
function docsUrl(): string | null {
  try {
    const pkg = JSON.parse(readFileSync(join(app.getAppPath(), 'package.json'), 'utf8')) as {
      homepage?: unknown;
    };
    return typeof pkg.homepage === 'string' && isHttpsUrl(pkg.homepage) ? pkg.homepage : null;
  } catch {
    return null;
  }
}
