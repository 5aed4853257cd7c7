import { Notification, type BrowserWindow } from 'electron';
import type { Notice } from '../contract';
import { revealWindow } from './main-window';
import { isLookedAt } from './notice-gate';

/** The OS notification for a notice (services/notify/ decides what and when, once), shown
 *  only when nobody looks at the window; a click brings the window back. */
export function desktopNotifier(window: () => BrowserWindow | null): (notice: Notice) => boolean {
  return (notice) => {
    if (isLookedAt(window()) || !Notification.isSupported()) return false;
    const n = new Notification({ title: notice.title, body: notice.body, silent: false });
    n.on('click', () => revealWindow(window()));
    n.show();
    return true;
  };
}
