import type { TenderClient } from '../src-main/contract';

/** What the preload (Electron) or the WebSocket client (web mode) puts on window.tender. */
export type TenderApi = TenderClient;

/** What only the desktop app's preload adds: the local path of a file or folder dropped on
 *  the window (a sandboxed renderer cannot see paths; Electron's webUtils can). */
export interface TenderDesktop {
  pathForFile(file: File): string;
  /** File › Open tender.toml…: called with the chosen path (the composer fills itself). */
  onOpenJob?(handler: (path: string) => void): () => void;
}

declare global {
  interface Window {
    tender?: TenderApi;
    tenderDesktop?: TenderDesktop;
  }
}

export function tenderApi(): TenderApi | null {
  return window.tender ?? null;
}
