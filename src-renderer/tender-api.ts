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

declare global {
  interface Window {
    tender?: TenderApi;
  }
}

export function tenderApi(): TenderApi | null {
  return window.tender ?? null;
}
