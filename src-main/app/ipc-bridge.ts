import { ipcMain, type BrowserWindow, type WebContents } from 'electron';
import { dispatch } from '../api/dispatch';
import { commands, events, type CommandName, type EventName } from '../contract/commands';
import type { TenderCore } from '../core/tender-core';
import { commandChannel, eventChannel } from './ipc-channels';

/** Serves the contract over Electron IPC. Every request is parsed by `dispatch` and its
 *  sender must be our own window; errors travel as data (Electron keeps only `message` of a
 *  thrown error). */
export function serveContract(core: TenderCore, win: BrowserWindow): () => void {
  const isOurs = (sender: WebContents) => sender.id === win.webContents.id;
  for (const name of Object.keys(commands) as CommandName[]) {
    ipcMain.handle(commandChannel(name), (event, input: unknown) => {
      if (!isOurs(event.sender)) {
        return {
          ok: false,
          error: { code: 'bad_request', message: 'request from an unknown window' },
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
