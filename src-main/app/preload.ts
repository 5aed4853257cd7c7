import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { commands, events } from '../contract/commands';
import { commandChannel, eventChannel } from './ipc-channels';

// window.tender is built by iterating the contract: nothing hand-listed, no raw ipcRenderer.
const commandNames = new Set(Object.keys(commands));
const eventNames = new Set(Object.keys(events));

contextBridge.exposeInMainWorld('tender', {
  invoke(command: string, input: unknown): Promise<unknown> {
    if (!commandNames.has(command)) {
      return Promise.resolve({
        ok: false,
        error: { code: 'bad_request', message: `unknown command "${command}"` },
      });
    }
    return ipcRenderer.invoke(commandChannel(command), input);
  },
  on(topic: string, handler: (payload: unknown) => void): () => void {
    if (!eventNames.has(topic)) throw new Error(`unknown event "${topic}"`);
    const listener = (_e: IpcRendererEvent, payload: unknown) => handler(payload);
    ipcRenderer.on(eventChannel(topic), listener);
    return () => ipcRenderer.removeListener(eventChannel(topic), listener);
  },
});
