import type {
  CommandInput,
  CommandName,
  CommandOutput,
  EventName,
  EventPayload,
  Result,
} from '../src-main/contract';

/** What the preload (Electron) or the WebSocket client (web mode) puts on window.tender. */
export interface TenderApi {
  invoke<C extends CommandName>(
    command: C,
    input: CommandInput<C>,
  ): Promise<Result<CommandOutput<C>>>;
  on<E extends EventName>(topic: E, handler: (payload: EventPayload<E>) => void): () => void;
}

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
