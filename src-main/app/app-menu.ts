import { Menu, type MenuItemConstructorOptions } from 'electron';
import type { MenuView } from './ipc-channels';

export interface MenuActions {
  showView(view: MenuView): void;
  /** File › Open: a native dialog for a tender.toml, then the composer. */
  openJob(): void;
  openDataFolder(): void;
  /** Absent when the example jobs are not on disk. */
  openExamples: (() => void) | null;
  /** Absent when package.json names no https homepage. */
  openDocs: (() => void) | null;
  /** Reload and developer tools only while developing. */
  isDev: boolean;
}

/** The application menu. Quit and Close go through the quit guard like every other way out
 *  (the `quit` and `close` roles emit before-quit and the window's close). */
export function buildAppMenu(a: MenuActions, platform = process.platform): Menu {
  const isMac = platform === 'darwin';
  const file: MenuItemConstructorOptions[] = [
    { label: 'New Run', accelerator: 'CmdOrCtrl+N', click: () => a.showView('composer') },
    { label: 'Open tender.toml…', accelerator: 'CmdOrCtrl+O', click: () => a.openJob() },
    { type: 'separator' },
    isMac ? { role: 'close' } : { role: 'quit' },
  ];
  const edit: MenuItemConstructorOptions[] = [
    { role: 'undo' },
    { role: 'redo' },
    { type: 'separator' },
    { role: 'cut' },
    { role: 'copy' },
    { role: 'paste' },
    ...(isMac ? [{ role: 'pasteAndMatchStyle' } as const] : []),
    { role: 'delete' },
    { type: 'separator' },
    { role: 'selectAll' },
  ];
  const view: MenuItemConstructorOptions[] = [
    { label: 'Ledger', accelerator: 'CmdOrCtrl+1', click: () => a.showView('ledger') },
    { label: 'Offers', accelerator: 'CmdOrCtrl+2', click: () => a.showView('offers') },
    { label: 'Runs', accelerator: 'CmdOrCtrl+3', click: () => a.showView('run') },
    { label: 'Settings', accelerator: 'CmdOrCtrl+,', click: () => a.showView('settings') },
    { type: 'separator' },
    ...(a.isDev
      ? ([
          { role: 'reload' },
          { role: 'forceReload' },
          { role: 'toggleDevTools' },
          { type: 'separator' },
        ] as const)
      : []),
    { role: 'resetZoom' },
    { role: 'zoomIn' },
    { role: 'zoomOut' },
    { type: 'separator' },
    { role: 'togglefullscreen' },
  ];
  const help: MenuItemConstructorOptions[] = [
    ...(a.openDocs ? [{ label: 'Tender Documentation', click: a.openDocs }] : []),
    ...(a.openExamples ? [{ label: 'Example Jobs', click: a.openExamples }] : []),
    { label: 'Show Data Folder', click: () => a.openDataFolder() },
  ];
  return Menu.buildFromTemplate([
    ...(isMac ? [{ role: 'appMenu' } as const] : []),
    { label: 'File', submenu: file },
    { label: 'Edit', submenu: edit },
    { label: 'View', submenu: view },
    { role: 'windowMenu' },
    { role: 'help', submenu: help },
  ]);
}
