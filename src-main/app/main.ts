import { app, dialog, Menu, safeStorage, session, type BrowserWindow } from 'electron';
import { join } from 'node:path';
import { TenderCore } from '../core/tender-core';
import { TenderError } from '../base/tender-error';
import { usePrivateUmask } from '../base/private-files';
import { buildAppMenu } from './app-menu';
import { BillingTray } from './billing-tray';
import { desktopHooks } from './desktop-hooks';
import { serveContract } from './ipc-bridge';
import { createMainWindow, loadRenderer, revealWindow } from './main-window';
import { menuActions } from './menu-actions';
import { QuitGuard } from './quit-guard';
import { chooseSecretStore } from './safe-storage-secret-store';
import { installSessionPolicy } from './session-policy';
import { confirmAndTearDown, TeardownRunner } from './teardown-all';
import { rendererSource } from './trusted-urls';

// Everything this process writes in the data folder is the user's alone.
usePrivateUmask();
// One Tender per user: a second launch focuses the first window instead.
if (!app.requestSingleInstanceLock()) app.quit();
else start();

function start(): void {
  let win: BrowserWindow | null = null;
  let core: TenderCore | null = null;
  const window = () => (win && !win.isDestroyed() ? win : null);

  app.on('second-instance', () => revealWindow(window()));
  app.on('activate', () => revealWindow(window())); // macOS: the Dock icon was clicked

  async function open(): Promise<void> {
    const home = process.env.TENDER_HOME ?? app.getPath('userData');
    const source = rendererSource(
      process.env.ELECTRON_RENDERER_URL,
      join(import.meta.dirname, '../renderer/index.html'),
    );
    installSessionPolicy(
      session.defaultSession,
      source,
      (wc) => wc !== null && wc.id === window()?.webContents.id,
    );

    const secrets = chooseSecretStore(home, safeStorage);
    if (secrets.fallbackReason) console.warn(`tender: ${secrets.fallbackReason}`);
    const opened = TenderCore.open({ home, secrets: secrets.store, hooks: desktopHooks(window) });
    core = opened;
    // The app is the driver while it is up: runs left detached (a closed lid, a crash)
    // are picked up — renewed, collected, torn down as their policy says.
    void opened.client.invoke('run.collectDue', { all: true });

    win = createMainWindow(join(import.meta.dirname, '../preload/preload.cjs'), source);
    const unserve = serveContract(opened, win, source);
    let tray: BillingTray | null = null;
    const teardown = new TeardownRunner(opened, window, (text) => tray?.setProgress(text));
    const guard = new QuitGuard({
      core: opened,
      teardown,
      window,
      beforeClose: () => {
        tray?.destroy();
        tray = null;
        unserve();
      },
    });
    guard.install();
    win.on('close', (e) => guard.intercept(e));
    tray = openTray(opened, {
      show: () => revealWindow(window()),
      tearDownAll: () => {
        confirmAndTearDown(opened, teardown, window()).catch((err: unknown) =>
          dialog.showErrorBox('Tear down all failed', (err as Error).message),
        );
      },
      quit: () => app.quit(),
    });
    Menu.setApplicationMenu(buildAppMenu(menuActions(window, home)));
    await loadRenderer(win, source);
  }

  app
    .whenReady()
    .then(open)
    .catch(async (err: unknown) => {
      dialog.showErrorBox('Tender could not start', describe(err));
      await core?.close().catch(() => undefined);
      app.exit(1);
    });
}

/** A tray is a convenience: a desktop without one (some Linux sessions) still gets the app. */
function openTray(core: TenderCore, actions: ConstructorParameters<typeof BillingTray>[1]) {
  try {
    return new BillingTray(core, actions);
  } catch (err) {
    console.warn(
      `tender: no tray item (${(err as Error).message}); the window shows the burn rate`,
    );
    return null;
  }
}

function describe(err: unknown): string {
  if (err instanceof TenderError) return err.hint ? `${err.message}\n\n${err.hint}` : err.message;
  return err instanceof Error ? err.message : String(err);
}
