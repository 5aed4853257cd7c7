import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { commands, events } from '../contract/commands';
import {
  commandChannel,
  eventChannel,
  MENU_CHANNEL,
  MENU_VIEWS,
  type MenuMessage,
} from './ipc-channels';

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

// The application menu's requests. A view is shown by pressing its sidebar button (the page
// keeps its own state); a tender.toml picked in the native dialog waits for the composer.
let openJob: ((path: string) => void) | null = null;
let pendingJobPath: string | null = null;

function showView(view: string): void {
  if (!(MENU_VIEWS as readonly string[]).includes(view)) return;
  document.querySelector<HTMLElement>(`[data-testid="nav-${view}"]`)?.click();
}

ipcRenderer.on(MENU_CHANNEL, (_e: IpcRendererEvent, msg: MenuMessage) => {
  if (msg?.kind === 'show') showView(msg.view);
  if (msg?.kind === 'open-job' && typeof msg.path === 'string') {
    showView('composer');
    if (openJob) openJob(msg.path);
    else pendingJobPath = msg.path;
  }
});

contextBridge.exposeInMainWorld('tenderDesktop', {
  /** The local path of a file or folder dropped on the window ('' for one made in memory). */
  pathForFile(file: File): string {
    return webUtils.getPathForFile(file);
  },
  /** Called with the path of a tender.toml chosen from File › Open; a path chosen before the
   *  composer subscribed is delivered on subscribing. Returns the unsubscribe. */
  onOpenJob(handler: (path: string) => void): () => void {
    openJob = handler;
    if (pendingJobPath !== null) {
      const path = pendingJobPath;
      pendingJobPath = null;
      queueMicrotask(() => handler(path));
    }
    return () => {
      if (openJob === handler) openJob = null;
    };
  },
});
