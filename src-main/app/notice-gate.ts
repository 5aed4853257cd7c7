/** The part of a BrowserWindow that says whether someone looks at it. */
export interface WatchedWindow {
  isDestroyed(): boolean;
  isVisible(): boolean;
  isMinimized(): boolean;
  isFocused(): boolean;
}

/** Someone looks at the window when it is shown, not minimized, and has the focus; a
 *  notification then would only repeat what the window shows. */
export function isLookedAt(win: WatchedWindow | null): boolean {
  return (
    win !== null && !win.isDestroyed() && win.isVisible() && !win.isMinimized() && win.isFocused()
  );
}
