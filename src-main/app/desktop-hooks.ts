import { dialog, shell, type BrowserWindow } from 'electron';
import type { CoreHooks } from '../core/tender-core';
import { TenderError } from '../base/tender-error';
import { desktopNotifier } from './notifier';

/** What only the desktop shell gives the core: the native folder picker (app.pickFolder),
 *  opening a folder in the file manager (outputs.open) and the OS notification. */
export function desktopHooks(window: () => BrowserWindow | null): CoreHooks {
  return {
    notify: desktopNotifier(window),
    async pickFolder() {
      const options: Electron.OpenDialogOptions = {
        title: 'Choose the workspace folder',
        buttonLabel: 'Use this folder',
        properties: ['openDirectory', 'createDirectory'],
      };
      const win = window();
      const r = win
        ? await dialog.showOpenDialog(win, options)
        : await dialog.showOpenDialog(options);
      return r.canceled ? null : (r.filePaths[0] ?? null);
    },
    async openPath(path: string) {
      const error = await shell.openPath(path); // '' on success, else why it failed
      if (error) {
        throw new TenderError(
          'conflict',
          `could not open ${path}: ${error}`,
          'open the folder yourself',
        );
      }
    },
  };
}
