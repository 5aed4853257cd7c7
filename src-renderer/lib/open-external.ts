/** Opens `url` outside Tender: a new tab of the user's browser in web mode; in the desktop
 *  app the window-open handler of src-main/app/main-window.ts hands it to the system
 *  (shell.openExternal), and only for the addresses it trusts (a forward on 127.0.0.1,
 *  https, an editor link). No Electron here: the renderer is the same in both. */
export function openExternal(url: string): void {
  window.open(url, '_blank', 'noopener,noreferrer');
}
