import { dialog, type BrowserWindow, type MessageBoxOptions } from 'electron';

/** A native message box, sheet-attached to the window when there is one; resolves with the
 *  index of the button pressed. Escape or closing it presses `cancelId`. */
export async function messageBox(
  win: BrowserWindow | null,
  options: MessageBoxOptions,
): Promise<number> {
  const opts: MessageBoxOptions = { noLink: true, title: 'Tender', ...options };
  const r =
    win && !win.isDestroyed()
      ? await dialog.showMessageBox(win, opts)
      : await dialog.showMessageBox(opts);
  return r.response;
}
