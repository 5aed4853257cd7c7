import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { dispatch } from '../api/dispatch';
import { commands, events, type CommandName, type EventName } from '../contract/commands';
import type { TenderCore } from '../core/tender-core';
import { commandChannel, eventChannel } from './ipc-channels';
import { isRendererUrl, type RendererSource } from './trusted-urls';

/** Serves the contract over Electron IPC. Every request is parsed by `dispatch`; it is
 *  answered only when it comes from our window's main frame showing our own page. Errors
 *  travel as data (Electron keeps only `message` of a thrown error). */
export function serveContract(
  core: TenderCore,
  win: BrowserWindow,
  source: RendererSource,
): () => void {
  for (const name of Object.keys(commands) as CommandName[]) {
    ipcMain.handle(commandChannel(name), (event, input: unknown) => {
      if (!isTrustedSender(event, win, source)) {
        return {
          ok: false,
          error: { code: 'bad_request', message: 'request from a page that is not Tender' },
        };
      }
      return dispatch(core.handlers, name, input);
    });
  }
  const offs = (Object.keys(events) as EventName[]).map((topic) =>
    core.bus.on(topic, (payload) => {
      if (!win.isDestroyed()) win.webContents.send(eventChannel(topic), payload);
    }),
  );
  return () => {
    for (const name of Object.keys(commands)) ipcMain.removeHandler(commandChannel(name));
    for (const off of offs) off();
  };
}

/** Our window's webContents, its top frame (not an iframe), and our page's URL in it. */
export function isTrustedSender(
  event: IpcMainInvokeEvent,
  win: BrowserWindow,
  source: RendererSource,
): boolean {
  if (win.isDestroyed() || event.sender.id !== win.webContents.id) return false;
  const frame = event.senderFrame; // null once the frame navigated away or is gone
  const main = win.webContents.mainFrame;
  if (!frame || frame.processId !== main.processId || frame.routingId !== main.routingId) {
    return false;
  }
  return isRendererUrl(frame.url, source);
}
